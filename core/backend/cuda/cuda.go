// Package cuda is the CUDA backend: it loads libcuzk_cuda.so (cuda/) at run
// time with dlopen, so that cuzk builds and runs on machines without CUDA,
// and offers its kernels through backend.Backend.
//
// What runs on the GPU: the NTTs, the quotient h and the G1 and G2 MSMs
// (over point sets kept resident in VRAM). Every GPU result is checked
// against the CPU backend by the tests run on a GPU host.
package cuda

/*
#cgo LDFLAGS: -ldl
#cgo CFLAGS: -I${SRCDIR}/../../../cuda
#include "calls.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math/big"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/msm"
	"github.com/cuzk/cuzk/core/ntt"
	"github.com/cuzk/cuzk/core/params"
)

// ABIVersion is the cuda/cuzk_cuda.h version this package speaks.
const ABIVersion = C.CUZK_CUDA_ABI_VERSION

// maxWindows (residency.go) must be the header's CUZK_CUDA_MAX_WINDOWS and
// errCUDABase (errors.go) its CUZK_CUDA_ERR_CUDA: either difference is a
// negative array length otherwise.
var (
	_ [C.CUZK_CUDA_MAX_WINDOWS - maxWindows]struct{}
	_ [maxWindows - C.CUZK_CUDA_MAX_WINDOWS]struct{}
	_ [C.CUZK_CUDA_ERR_CUDA - errCUDABase]struct{}
	_ [errCUDABase - C.CUZK_CUDA_ERR_CUDA]struct{}
)

// ErrNoLibrary is wrapped when libcuzk_cuda.so cannot be loaded.
var ErrNoLibrary = errors.New("CUDA library not loaded")

// Library is a loaded libcuzk_cuda.so.
type Library struct {
	path   string
	handle unsafe.Pointer
	symbols
}

// Open loads the library at path.
func Open(path string) (*Library, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	h := C.dlopen(cpath, C.RTLD_NOW|C.RTLD_LOCAL)
	if h == nil {
		return nil, fmt.Errorf("cuda: %w: %s", ErrNoLibrary, C.GoString(C.dlerror()))
	}
	l := &Library{path: path, handle: h}
	sym := func(name string) (unsafe.Pointer, error) {
		cn := C.CString(name)
		defer C.free(unsafe.Pointer(cn))
		p := C.dlsym(h, cn)
		if p == nil {
			return nil, fmt.Errorf("cuda: %s: missing symbol %s", path, name)
		}
		return p, nil
	}
	abi, err := sym("cuzk_cuda_abi_version")
	if err != nil {
		C.dlclose(h)
		return nil, err
	}
	if v := int(C.call_abi_version(abi)); v != ABIVersion {
		C.dlclose(h)
		return nil, fmt.Errorf("cuda: %s implements ABI %d, this build needs %d", path, v, ABIVersion)
	}
	// the other entry points (symbols_gen.go); the bench ones are nil in a
	// library built without them (make -C cuda BENCH=1 has them)
	if err := l.bind(sym); err != nil {
		C.dlclose(h)
		return nil, err
	}
	return l, nil
}

// ErrNoBench is returned by the Bench methods with a library built without
// the bench entry points.
var ErrNoBench = errors.New("cuda: this libcuzk_cuda.so has no bench entry points (build it with make -C cuda BENCH=1)")

const errLen = 1024

// call runs fn with an error buffer and converts a failure.
func call(what string, fn func(e *C.char) C.int) error {
	buf := (*C.char)(C.malloc(errLen))
	defer C.free(unsafe.Pointer(buf))
	*buf = 0
	if rc := fn(buf); rc != 0 {
		return &Error{Op: what, Msg: C.GoString(buf), Code: int(rc)}
	}
	return nil
}

// Devices lists the GPUs the library sees.
func (l *Library) Devices() ([]backend.GPU, error) {
	var n C.int
	if err := call("device count", func(e *C.char) C.int { return C.call_device_count(l.deviceCount, &n, e, errLen) }); err != nil {
		return nil, err
	}
	gpus := make([]backend.GPU, 0, int(n))
	name := (*C.char)(C.malloc(256))
	defer C.free(unsafe.Pointer(name))
	for i := 0; i < int(n); i++ {
		var total, free C.size_t
		err := call("device info", func(e *C.char) C.int {
			return C.call_device_info(l.deviceInfo, C.int(i), name, 256, &total, &free, e, errLen)
		})
		if err != nil {
			return gpus, err
		}
		gpus = append(gpus, backend.GPU{Index: i, Name: C.GoString(name), VRAMTotal: uint64(total), VRAMFree: uint64(free)})
	}
	return gpus, nil
}

// Options are a device's kernel options (cuzk_cuda.h's cuzk_cuda_options).
type Options struct {
	// MaxDeviceMemory caps what cuzk holds on the device (0: no cap).
	MaxDeviceMemory uint64
	// MSMMaxPairs limits an MSM pass's (point, window) pairs (0: as the
	// memory allows; tests force several passes with it).
	MSMMaxPairs uint64
	// MSMWindowBits forces the window size (0: by the MSM's size; 8..20).
	MSMWindowBits int
	// MSMPool keeps an MSM's scratch in the device's pool for the next one.
	MSMPool bool
	// Profile prints each MSM's and h's phase timings on stderr.
	Profile bool
	// HostSync is how a host thread waits for the device: 0 the CUDA
	// runtime's choice, 1 spin, 2 yield, 3 block (config.HostSyncModes).
	HostSync int
}

// DefaultOptions are the library's defaults: no cap, the pool on.
func DefaultOptions() Options { return Options{MSMPool: true} }

// SetOptions sets device dev's kernel options.
func (l *Library) SetOptions(dev int, o Options) error {
	c := C.cuzk_cuda_options{max_device_memory: C.uint64_t(o.MaxDeviceMemory), msm_max_pairs: C.uint64_t(o.MSMMaxPairs),
		msm_window_bits: C.int32_t(o.MSMWindowBits), msm_pool: C.int32_t(cbool(o.MSMPool)), profile: C.int32_t(cbool(o.Profile)),
		host_sync: C.int32_t(o.HostSync)}
	return call("set options", func(e *C.char) C.int { return C.call_set_options(l.setOptions, C.int(dev), &c, e, errLen) })
}

// Memory is what cuzk holds on a device by the library's own count; Pool
// is the part of Held that the MSM pool reserves (in use by an MSM or
// idle).
type Memory struct {
	Held, Peak, Cap, Pool uint64
}

// Memory reads device dev's count; resetPeak restarts the peak from what
// is held now (after reading it).
func (l *Library) Memory(dev int, resetPeak bool) (Memory, error) {
	var held, peak, cp, pool C.uint64_t
	err := call("memory", func(e *C.char) C.int {
		return C.call_memory(l.memory, C.int(dev), &held, &peak, &cp, &pool, cbool(resetPeak), e, errLen)
	})
	return Memory{Held: uint64(held), Peak: uint64(peak), Cap: uint64(cp), Pool: uint64(pool)}, err
}

// consts is the domain constants block of cuzk_cuda.h.
type consts struct {
	omega, omegaInv, nInv, g, gInv, zInv fr.Element
}

var constCache sync.Map // n -> *consts

func domainConsts(n int) *consts {
	if c, ok := constCache.Load(n); ok {
		return c.(*consts)
	}
	d := ntt.DomainConstants(n) // the tables would be 17 GB on the host at 2^27
	c := &consts{omega: d.Generator, omegaInv: d.GeneratorInv, nInv: d.CardinalityInv,
		g: d.FrMultiplicativeGen, gInv: d.FrMultiplicativeGenInv}
	var gn fr.Element
	gn.Exp(c.g, new(big.Int).SetUint64(uint64(n)))
	one := fr.One()
	c.zInv.Sub(&gn, &one).Inverse(&c.zInv)
	constCache.Store(n, c)
	return c
}

// Backend runs NTTs, h and the G1 and G2 MSMs on one GPU.
type Backend struct {
	lib *Library
	dev int
	mem *vram
	g1  *residency[bls.G1Affine, bls.G1Jac, *bls.G1Jac]
	g2  *residency[bls.G2Affine, bls.G2Jac, *bls.G2Jac]
	// open is the prefetches made and not yet released (queries.go),
	// which Close frees; guarded by preMu.
	preMu sync.Mutex
	open  map[*prefetch]struct{}
	// a, b, c prefetches by outcome (Transfers), and the
	// count the last one was decided on (guarded by preMu)
	preWhole, preAOnly, preRefused atomic.Uint64
	// fileReadNanos is the time streamed chunks spent being read from
	// their parameter file (filestream.go) before their copy
	fileReadNanos atomic.Int64
	// views: given-back sets copied from their file's pages in memory;
	// fileMappedBytes, the bytes put from them (filestream.go)
	views           fileViews
	fileMappedBytes atomic.Int64
	preLast         backend.PrefetchRoom
	// qs is the running query stage's allocations (devmem.go's
	// queryStage), changed with them and read with the device's count
	// under qsMu, so that a prefetch sees the two agree.
	qsMu sync.Mutex
	qs   queryStage
}

// Prefetches counts the a, b, c prefetches by outcome.
func (b *Backend) Prefetches() backend.Prefetches {
	b.preMu.Lock()
	last := b.preLast
	b.preMu.Unlock()
	return backend.Prefetches{Whole: b.preWhole.Load(), AOnly: b.preAOnly.Load(), Refused: b.preRefused.Load(), Last: last}
}

// residentShare is the share of the device's free memory at start that
// parameter points may occupy; the rest is scratch for the MSM (about 350
// bytes a point at c = 16: keys, values and their sorted copies) and the
// NTTs (three 32-byte vectors of the domain).
const residentShare = 0.6

// NewBackend returns the backend for gpu (from lib.Devices) with the
// kernel options opts. With a cap (opts.MaxDeviceMemory) the memory plan
// (devmem.go) decides which point sets stay resident; without one the
// device's free memory sizes the budget of resident parameter points,
// shared by the G1 and G2 sets.
func NewBackend(lib *Library, gpu backend.GPU, opts Options) (*Backend, error) {
	if err := lib.SetOptions(gpu.Index, opts); err != nil {
		return nil, err
	}
	b := &Backend{lib: lib, dev: gpu.Index}
	mem := &vram{budget: uint64(float64(gpu.VRAMFree) * residentShare), plan: newMemPlan(opts.MaxDeviceMemory)}
	if mem.plan.cap > 0 {
		mem.budget = mem.plan.cap
	}
	b.mem = mem
	b.g1 = newResidency[bls.G1Affine, bls.G1Jac](pointStore[bls.G1Affine, bls.G1Jac](deviceStore[bls.G1Affine, bls.G1Jac, *bls.G1Jac]{b, 1, lib.g1Upload, lib.msmG1, lib.g1Free, lib.g1CheckSubgroup, lib.g1Alloc, lib.g1Put}), mem)
	b.g2 = newResidency[bls.G2Affine, bls.G2Jac](pointStore[bls.G2Affine, bls.G2Jac](deviceStore[bls.G2Affine, bls.G2Jac, *bls.G2Jac]{b, 2, lib.g2Upload, lib.msmG2, lib.g2Free, lib.g2CheckSubgroup, lib.g2Alloc, lib.g2Put}), mem)
	return b, nil
}

// CheckRows refuses a partition of rows rows that cannot run within the
// device's cap even with every point set streamed, and plans the resident
// sets for partitions of that size (backend.MemoryCap). A partition that
// fits only in smaller chunks than the plan's makes them the device's
// (devmem.go's fitted; a streamer already made is made again).
func (b *Backend) CheckRows(rows int) error {
	b.mem.mu.Lock()
	plan := b.mem.plan.fitted(rows)
	if err := plan.check(rows); err != nil {
		b.mem.mu.Unlock()
		return fmt.Errorf("cuda:%d: %w", b.dev, err)
	}
	b.mem.plan = plan // its chunk only ever shrinks: later smaller partitions keep it
	b.mem.rows = max(b.mem.rows, rows)
	b.mem.mu.Unlock()
	b.g1.shrinkChunk(plan.chunkOf(g1Size))
	b.g2.shrinkChunk(plan.chunkOf(g2Size))
	return nil
}

// Memory reports what cuzk holds on the device by the library's count.
func (b *Backend) Memory(resetPeak bool) (Memory, error) { return b.lib.Memory(b.dev, resetPeak) }

// DeviceMemory is backend.Reporter's: the library's count.
func (b *Backend) DeviceMemory() (held, peak, cap uint64, err error) {
	m, err := b.Memory(false)
	return m.Held, m.Peak, m.Cap, err
}

// StreamedBytes is the host-to-device bytes of streamed point sets so far.
func (b *Backend) StreamedBytes() uint64 {
	return uint64(b.g1.streamedBytes.Load() + b.g2.streamedBytes.Load())
}

// StreamedCopyTime is the time the streamed
// points' copies took (direct copies timed on the device, staged ones on
// the host); StreamedBytes over it is the achieved bandwidth.
func (b *Backend) StreamedCopyTime() time.Duration {
	return time.Duration(b.g1.copyNanos.Load() + b.g2.copyNanos.Load())
}

// StreamedChunks is the number of point chunks streamed through the
// device so far (0 while every set stays resident).
func (b *Backend) StreamedChunks() int64 {
	return b.g1.streamedChunks.Load() + b.g2.streamedChunks.Load()
}

// Chunks is the chunks streamed, and the first chunks staged ahead of
// their MSM by group.
func (b *Backend) Chunks() backend.StreamChunks {
	return backend.StreamChunks{Streamed: uint64(b.StreamedChunks()),
		StagedG1: uint64(b.g1.stagedChunks.Load()), StagedG2: uint64(b.g2.stagedChunks.Load())}
}

// Transfers is backend.Reporter's: the streamed point sets and the a, b, c
// prefetches.
func (b *Backend) Transfers() backend.Transfers {
	return backend.Transfers{StreamedBytes: b.StreamedBytes(), StreamedCopy: b.StreamedCopyTime(),
		StreamedFileRead: time.Duration(b.fileReadNanos.Load()), StreamedFileMapped: uint64(b.fileMappedBytes.Load()), Chunks: b.Chunks(), Prefetches: b.Prefetches()}
}

// Capabilities: everything the interface describes (the memory cap's
// check is offered with or without a cap: without one it refuses
// nothing).
func (b *Backend) Capabilities() backend.Capabilities {
	return backend.Capabilities{FusedH: b, Queries: b, Prefetch: b, Pin: b, Keys: b, Holds: b, FromFile: b, Warm: b, Subgroup: b,
		Cap: b, Report: b}
}

// deviceStore is the library's point-set calls of one group for one
// device.
type deviceStore[P, R any, PR jacobian[R]] struct {
	b                              *Backend
	group                          C.int // 1: G1, 2: G2
	uploadFn, msmFn, fre, subgroup unsafe.Pointer
	allocFn, putFn                 unsafe.Pointer
}

// groupOf is the library's group of a point type: 1 for G1, 2 for G2.
func groupOf[P any]() C.int {
	var p P
	if _, ok := any(p).(bls.G2Affine); ok {
		return 2
	}
	return 1
}

func (d deviceStore[P, R, PR]) uploadScalars(v []fr.Element) (any, error) {
	return d.b.uploadScalars(v)
}

func (d deviceStore[P, R, PR]) freeScalars(h any) { h.(*scalars).free() }

func (d deviceStore[P, R, PR]) newStream(chunk int) (any, error) {
	var h unsafe.Pointer
	err := call("stream", func(e *C.char) C.int {
		return C.call_stream_new(d.b.lib.streamNew, C.int(d.b.dev), d.group, C.size_t(chunk), &h, e, errLen)
	})
	if err != nil {
		return nil, err
	}
	return &devStream{h: h, lib: d.b.lib}, nil
}

// put copies points into the streamer's slot: from the host, or, when
// their host pages were given back, from the parameter file as stored
// there (filestream.go).
func (d deviceStore[P, R, PR]) put(st any, slot int, points []P) error {
	s := st.(*devStream)
	if p, n := span(points); params.Released(p, n) && slot >= 0 && slot < 2 {
		buf, err := d.b.views.bytes(p, n)
		if err != nil {
			return err
		}
		ahead := s.held[slot] == (heldSpan{p, n})
		s.held[slot] = heldSpan{} // taken, or about to be overwritten
		if buf != nil {
			d.b.fileMappedBytes.Add(int64(n))
		} else if ahead {
			buf = s.raw[slot][:n]
		} else if buf, err = d.readChunk(s, slot, p, n); err != nil {
			return err
		}
		return call("stream put", func(e *C.char) C.int {
			return C.call_stream_put_file(d.b.lib.streamPutFile, s.h, C.int(slot), unsafe.Pointer(unsafe.SliceData(buf)), C.size_t(len(points)), e, errLen)
		})
	}
	if err := onHost(points); err != nil {
		return err
	}
	return call("stream put", func(e *C.char) C.int {
		return C.call_stream_put(d.b.lib.streamPut, s.h, C.int(slot), unsafe.Pointer(unsafe.SliceData(points)), C.size_t(len(points)), e, errLen)
	})
}

func (d deviceStore[P, R, PR]) streamMSM(st any, slot int, sc any, offset, n, setN int) (R, error) {
	var ws windowSums[R]
	err := call("stream msm", func(e *C.char) C.int {
		return C.call_stream_msm(d.b.lib.streamMsm, st.(*devStream).h, C.int(slot), sc.(*scalars).h, C.size_t(offset), C.size_t(n),
			C.size_t(setN), unsafe.Pointer(&ws), e, errLen)
	})
	if err != nil {
		var zero R
		return zero, err
	}
	return combine[R, PR](&ws)
}

func (d deviceStore[P, R, PR]) freeStream(st any) {
	s := st.(*devStream)
	C.call_stream_free(d.b.lib.streamFree, s.h) // waits for the copies in flight
	s.freeRaw(0)
	s.freeRaw(1)
}

func (d deviceStore[P, R, PR]) takeCopyStats(st any) (bytes, ns uint64) {
	var b, t C.uint64_t
	if call("stream stats", func(e *C.char) C.int {
		return C.call_stream_take_stats(d.b.lib.streamTakeStats, st.(*devStream).h, &b, &t, e, errLen)
	}) != nil {
		return 0, 0
	}
	return uint64(b), uint64(t)
}

// pin page-locks points, a set that streams; for one whose host pages
// were given back, the file's pages when the file is in memory
// (fileViews), else it streams from its file, unlocked (errFromFile).
func (d deviceStore[P, R, PR]) pin(points []P) error {
	if p, n := span(points); params.Released(p, n) {
		return d.b.views.lock(d.b.lib, p, n)
	}
	if err := onHost(points); err != nil {
		return err
	}
	return d.b.lib.register(unsafe.Pointer(unsafe.SliceData(points)), uintptr(uint64(len(points))*pointBytes[P]()))
}

func (d deviceStore[P, R, PR]) unpin(points []P) {
	if p := unsafe.Pointer(unsafe.SliceData(points)); !d.b.views.unlock(d.b.lib, p) {
		_ = d.b.lib.unregister(p)
	}
}

func (d deviceStore[P, R, PR]) upload(points []P) (any, error) {
	if err := onHost(points); err != nil {
		return nil, err
	}
	var h unsafe.Pointer
	err := call("upload", func(e *C.char) C.int {
		return C.call_upload(d.uploadFn, d.group, C.int(d.b.dev), unsafe.Pointer(unsafe.SliceData(points)), C.size_t(len(points)), &h, e, errLen)
	})
	return h, err
}

func (d deviceStore[P, R, PR]) msm(h any, scalars []fr.Element) (R, error) {
	var ws windowSums[R]
	err := call("msm", func(e *C.char) C.int {
		return C.call_msm(d.msmFn, d.group, h.(unsafe.Pointer), unsafe.Pointer(unsafe.SliceData(scalars)), C.size_t(len(scalars)), unsafe.Pointer(&ws), e, errLen)
	})
	if err != nil {
		var zero R
		return zero, err
	}
	return combine[R, PR](&ws)
}

func (d deviceStore[P, R, PR]) free(h any) { C.call_set_free(d.fre, d.group, h.(unsafe.Pointer)) }

func (d deviceStore[P, R, PR]) alloc(n int) (any, error) {
	var h unsafe.Pointer
	err := call("point set", func(e *C.char) C.int {
		return C.call_alloc(d.allocFn, d.group, C.int(d.b.dev), C.size_t(n), &h, e, errLen)
	})
	return h, err
}

func (d deviceStore[P, R, PR]) fill(h any, offset int, points []P) error {
	if err := onHost(points); err != nil {
		return err
	}
	return call("put points", func(e *C.char) C.int {
		return C.call_put(d.putFn, d.group, h.(unsafe.Pointer), C.size_t(offset), unsafe.Pointer(unsafe.SliceData(points)), C.size_t(len(points)), e, errLen)
	})
}

func (d deviceStore[P, R, PR]) checkSubgroup(h any, offset, n int) (bad, first int, err error) {
	var nBad, firstBad C.size_t
	err = call("subgroup check", func(e *C.char) C.int {
		return C.call_subgroup(d.subgroup, d.group, h.(unsafe.Pointer), C.size_t(offset), C.size_t(n), &nBad, &firstBad, e, errLen)
	})
	if err != nil || nBad == 0 {
		return 0, -1, err
	}
	return int(nBad), int(firstBad), nil
}

// Close frees the resident point sets and any prefetch left.
func (b *Backend) Close() {
	b.releasePrefetches()
	b.g1.close()
	b.g2.close()
}

// Name returns "cuda:<device>".
func (b *Backend) Name() string { return fmt.Sprintf("cuda:%d", b.dev) }

func ptr(v []fr.Element) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(v)) }

// H computes h on the GPU.
func (b *Backend) H(a, bb, c []fr.Element) ([]fr.Element, error) {
	n := len(a)
	if len(bb) != n || len(c) != n {
		return nil, fmt.Errorf("cuda: h: a, b, c of %d/%d/%d elements", n, len(bb), len(c))
	}
	k := domainConsts(n)
	err := call("ntt_h", func(e *C.char) C.int {
		return C.call_ntt_h(b.lib.nttH, C.int(b.dev), ptr(a), ptr(bb), ptr(c), C.size_t(n), unsafe.Pointer(k), e, errLen)
	})
	if err != nil {
		return nil, err
	}
	return a[:n-1], nil
}

// NTT transforms x in place on the GPU (natural order in and out).
func (b *Backend) NTT(x []fr.Element, inverse, coset bool) error {
	k := domainConsts(len(x))
	return call("ntt", func(e *C.char) C.int {
		return C.call_ntt(b.lib.ntt, C.int(b.dev), ptr(x), C.size_t(len(x)), cbool(inverse), cbool(coset), unsafe.Pointer(k), e, errLen)
	})
}

// BenchNTT returns the median milliseconds of reps forward NTTs of size n
// on device-resident data.
func (b *Backend) BenchNTT(n, reps int) (float64, error) {
	if b.lib.benchNtt == nil {
		return 0, ErrNoBench
	}
	k := domainConsts(n)
	var ms C.double
	err := call("bench ntt", func(e *C.char) C.int {
		return C.call_bench_ntt(b.lib.benchNtt, C.int(b.dev), C.size_t(n), C.int(reps), unsafe.Pointer(k), &ms, e, errLen)
	})
	return float64(ms), err
}

func cbool(v bool) C.int {
	if v {
		return 1
	}
	return 0
}

// HMSM computes h and Σ h_i·points[i] on the GPU, keeping h there; when
// points are not resident (streamed), h stays on the device as the
// scalars of the streamed MSM, computed lean under a cap that cannot hold
// a, b and c together (devmem.go). a, b, c are left unchanged; pre's copy
// of them, when it has one of these slices, is used instead of an upload.
func (b *Backend) HMSM(points []bls.G1Affine, a, bb, c []fr.Element, pre backend.Prefetch) (res bls.G1Jac, hTime, msmTime time.Duration, err error) {
	n := len(a)
	if len(bb) != n || len(c) != n || len(points) != n-1 {
		return res, 0, 0, fmt.Errorf("cuda: h msm: a, b, c of %d/%d/%d elements, %d points", n, len(bb), len(c), len(points))
	}
	h, err := b.g1.handle(points)
	if err != nil {
		return res, 0, 0, err
	}
	k := domainConsts(n)
	if h == nil { // streamed: h stays on the device as the scalars of the chunks' MSMs
		start := time.Now()
		// lean (a cap without room for a, b and c together): a goes up
		// alone and h takes b and c from the host one after the other
		lean := b.plan().lean(n)
		abc := b.takeABC(pre, a, bb, c, lean)
		if abc == nil {
			upB, upC := bb, c
			if lean {
				upB, upC = nil, nil
			}
			if abc, err = b.uploadABC(a, upB, upC); err != nil {
				return res, 0, 0, err
			}
		}
		// H's first chunk goes up while h's NTTs run: behind b and c, or
		// (lean) ahead of b's copy, which h starts
		b.g1.stage(points)
		hv, err := b.hScalars(abc, n, bb, c, lean)
		if err != nil {
			return res, 0, 0, err
		}
		defer hv.free()
		hTime = time.Since(start)
		res, err = b.g1.streamDevice(points, hv, hv.download)
		return res, hTime, time.Since(start) - hTime, err
	}
	var ms [2]C.double
	var ws windowSums[bls.G1Jac]
	if abc := b.takeABC(pre, a, bb, c, false); abc != nil { // copied while the query MSMs ran
		err = call("h msm", func(e *C.char) C.int {
			return C.call_h_msm_g1_abc(b.lib.hMsmG1Abc, abc, unsafe.Pointer(k), h.(unsafe.Pointer), unsafe.Pointer(&ws), &ms[0], e, errLen)
		})
	} else {
		err = call("h msm", func(e *C.char) C.int {
			return C.call_h_msm_g1(b.lib.hMsmG1, C.int(b.dev), ptr(a), ptr(bb), ptr(c), C.size_t(n), unsafe.Pointer(k), h.(unsafe.Pointer),
				unsafe.Pointer(&ws), &ms[0], e, errLen)
		})
	}
	if err == nil {
		res, err = combine(&ws)
	}
	return res, millis(ms[0]), millis(ms[1]), err
}

// hScalars computes h of the a, b, c handle abc (consumed, also on error)
// into a device vector of its n − 1 coefficients; lean: abc holds a alone
// and b and c go up from the host one after the other.
func (b *Backend) hScalars(abc unsafe.Pointer, n int, bb, c []fr.Element, lean bool) (*scalars, error) {
	k := domainConsts(n)
	hv := &scalars{b: b, n: n - 1}
	err := call("h", func(e *C.char) C.int {
		if lean {
			return C.call_h_abc_lean_scalars(b.lib.hAbcLeanScalars, abc, ptr(bb), ptr(c), unsafe.Pointer(k), &hv.h, e, errLen)
		}
		return C.call_h_abc_scalars(b.lib.hAbcScalars, abc, unsafe.Pointer(k), &hv.h, e, errLen)
	})
	return hv, err
}

func millis(ms C.double) time.Duration { return time.Duration(float64(ms) * float64(time.Millisecond)) }

// MSMG1 runs on the GPU over the resident copy of points.
func (b *Backend) MSMG1(points []bls.G1Affine, scalars []fr.Element) (bls.G1Jac, msm.Stats, error) {
	var res bls.G1Jac
	if len(points) != len(scalars) {
		return res, msm.Stats{}, fmt.Errorf("cuda: msm: %d points, %d scalars", len(points), len(scalars))
	}
	// The scalar classes are not counted here: a host pass over the
	// scalars would cost ~0.3 s a partition at 2^27.
	res, err := b.g1.msm(points, scalars)
	return res, msm.Stats{}, err
}

// MSMG2 runs on the GPU over the resident copy of points (threads is the
// CPU backend's and unused here).
func (b *Backend) MSMG2(points []bls.G2Affine, scalars []fr.Element, threads int) (bls.G2Jac, msm.Stats, error) {
	var res bls.G2Jac
	if len(points) != len(scalars) {
		return res, msm.Stats{}, fmt.Errorf("cuda: msm g2: %d points, %d scalars", len(points), len(scalars))
	}
	res, err := b.g2.msm(points, scalars)
	return res, msm.Stats{}, err
}

// BenchMSMG1 returns the median milliseconds of reps G1 MSMs over points
// (resident) with random device-side scalars.
func (b *Backend) BenchMSMG1(points []bls.G1Affine, reps int) (float64, error) {
	return benchMSM(b.lib.benchMsmG1, b.g1, points, reps)
}

// BenchMSMG2 is BenchMSMG1 for G2.
func (b *Backend) BenchMSMG2(points []bls.G2Affine, reps int) (float64, error) {
	return benchMSM(b.lib.benchMsmG2, b.g2, points, reps)
}

// forceBranchConvert makes every MSM of the library take the accumulation
// path it takes when its XYZZ piece sums get no buffer (for the tests of
// that path; ErrNoBench without a bench build).
func (l *Library) forceBranchConvert(on bool) error {
	if l.benchForceBranchConvert == nil {
		return ErrNoBench
	}
	C.call_bench_force_branch_convert(l.benchForceBranchConvert, cbool(on))
	return nil
}

// refusePassScratch makes the next passes MSM passes of more than one
// window fail as if their scratch had been refused (each then runs again
// with half its windows) and returns how many of the last setting were
// left (ErrNoBench without a bench build).
func (l *Library) refusePassScratch(passes int) (int, error) {
	if l.benchRefusePassScratch == nil {
		return 0, ErrNoBench
	}
	return int(C.call_bench_refuse_pass_scratch(l.benchRefusePassScratch, C.int(passes))), nil
}

func benchMSM[P comparable, R any, PR jacobian[R]](fn unsafe.Pointer, r *residency[P, R, PR], points []P, reps int) (float64, error) {
	if fn == nil {
		return 0, ErrNoBench
	}
	h, err := r.handle(points)
	if err != nil || h == nil {
		return 0, fmt.Errorf("cuda: bench: %d points do not fit the resident budget (%v)", len(points), err)
	}
	var ms C.double
	err = call("bench msm", func(e *C.char) C.int {
		return C.call_bench_msm(fn, groupOf[P](), h.(unsafe.Pointer), C.size_t(len(points)), C.int(reps), &ms, e, errLen)
	})
	return float64(ms), err
}

// Pin page-locks buf (memory the caller keeps for many proofs, such as the
// engine's pooled a, b, c), so that copies of it run at the link's rate.
// Unpin before freeing it.
func (l *Library) Pin(buf []fr.Element) error {
	if len(buf) == 0 {
		return nil
	}
	return l.register(ptr(buf), uintptr(len(buf))*unsafe.Sizeof(fr.Element{}))
}

// Unpin undoes Pin.
func (l *Library) Unpin(buf []fr.Element) error {
	if len(buf) == 0 {
		return nil
	}
	return l.unregister(ptr(buf))
}

// register page-locks bytes of host memory at p (cuzk_cuda_host_register).
func (l *Library) register(p unsafe.Pointer, bytes uintptr) error {
	return call("host register", func(e *C.char) C.int {
		return C.call_host_register(l.hostRegister, p, C.size_t(bytes), e, errLen)
	})
}

// registerReadOnly page-locks bytes at p that the host maps read-only
// (cuzk_cuda_host_register_read_only).
func (l *Library) registerReadOnly(p unsafe.Pointer, bytes uintptr) error {
	return call("host register", func(e *C.char) C.int {
		return C.call_host_register_read_only(l.hostRegisterReadOnly, p, C.size_t(bytes), e, errLen)
	})
}

// waitCopy returns once the copy of a streamer's slot in flight, if any,
// is done (cuzk_cuda_stream_wait).
func (l *Library) waitCopy(stream unsafe.Pointer, slot int) error {
	return call("stream wait", func(e *C.char) C.int { return C.call_stream_wait(l.streamWait, stream, C.int(slot), e, errLen) })
}

// unregister undoes register.
func (l *Library) unregister(p unsafe.Pointer) error {
	return call("host unregister", func(e *C.char) C.int { return C.call_host_unregister(l.hostUnregister, p, e, errLen) })
}

// Pin page-locks buf (see Library.Pin): backend.HostPinner.
func (b *Backend) Pin(buf []fr.Element) error { return b.lib.Pin(buf) }

// Unpin undoes Pin.
func (b *Backend) Unpin(buf []fr.Element) error { return b.lib.Unpin(buf) }
