package params

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk/cuzk/core/internal/fileio"
	"github.com/cuzk/cuzk/core/internal/par"
)

// A key's host copy, when the device holds it.
//
// A parameter file read with Options.OffHeap puts each large query section
// in an anonymous mapping of its own instead of the Go heap: outside the
// garbage collector's pacing (at GOGC=100 a 38 GB key on the heap lets the
// heap reach twice that before a collection) and with pages that can be
// given back.
// Once a device holds a section (its resident copy filled and checked
// while the file decoded, or made resident afterwards), the section's
// pages are released (madvise MADV_DONTNEED) but for its first and last,
// which hold the points that identify a set on the device: a 2^27-domain
// key is ~71 GB, and a host of 125 GiB that keeps the file in /dev/shm
// cannot also hold a decoded copy. Whatever reads a section's points on
// the host (an upload, a streamed MSM, page-locking, the CPU backend)
// calls EnsureHost first, which decodes the released pages from the file
// again, once: the section then stays on the host. The file must not have
// changed since the load (its stamp is compared); if it has, EnsureHost
// fails and so does the proof that needed it.
//
// The mappings are registered here by address, because the devices see
// point slices, not keys; they are unmapped when the key is collected.

// offHeapMin is the smallest section put off the heap: smaller ones are not
// worth a mapping of their own.
const offHeapMin = 1 << 20

const pageSize = 4096

// hostRegion is one off-heap section: its mapping, which of its pages are
// released, and where in the file its points are.
type hostRegion struct {
	mem   []byte
	size  int // bytes per point
	src   source
	off   int // the section's first point in the file
	mu    sync.Mutex
	freed []uint64 // bit per page: released
	nFree int
	held  bool // needed on the host: never released again
}

// source is the file a key was read from, as it was then, and a
// descriptor of it kept open while the key's sections may read it again
// (a device streams them from it): the file removed or another renamed
// over its path after the load (a parameter file in /dev/shm removed to
// give its pages back) is still the one read. Once the devices hold the
// whole key (ProvingKey.CloseFile), the descriptor is closed, so that a
// removed file's pages go back; a section read again after that (the CPU
// backend after a device failure) opens the path, and a file that is not
// the one loaded is refused.
type source struct {
	path  string
	stamp fileio.Stamp
	kept  *keptFile
}

// keptFile is a key's descriptor of its file, shared by its sections.
type keptFile struct {
	mu sync.RWMutex // read: f in use; write: closing it
	f  *os.File     // nil: closed
}

// open runs fn on the file loaded, unchanged since (see
// fileio.Stamp.Unwritten): the kept descriptor, or the path opened again.
func (s source) open(fn func(f *os.File) error) error {
	s.kept.mu.RLock()
	defer s.kept.mu.RUnlock()
	if f := s.kept.f; f != nil {
		if err := s.unchanged(f); err != nil {
			return err
		}
		return fn(f)
	}
	f, err := os.Open(s.path)
	if err != nil {
		return fmt.Errorf("params: reading points again: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("params: reading points again: %w", err)
	}
	// By path, nothing explains a change time that moved: the stamp must
	// be the one loaded.
	if fileio.StampOfInfo(st) != s.stamp {
		return s.changed()
	}
	return fn(f)
}

// changed is the error of a read from a file that is not the one loaded.
func (s source) changed() error {
	return fmt.Errorf("params: %s changed since it was loaded: its points, given back once a device held them, cannot be read again (load it again)", s.path)
}

func (k *keptFile) close() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.f != nil {
		_ = k.f.Close()
		k.f = nil
	}
}

// CloseFile closes the descriptor of pk's file kept since the load (see
// source): the devices hold every section, none is read from the file as
// proofs run.
func (pk *ProvingKey) CloseFile() {
	if pk.file != nil {
		pk.file.close()
	}
}

var regions struct {
	sync.RWMutex
	list []*hostRegion // sorted by address
}

func (r *hostRegion) base() uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(r.mem))) }

// regionOf returns the region holding address p, or nil.
func regionOf(p uintptr) *hostRegion {
	regions.RLock()
	defer regions.RUnlock()
	i, _ := slices.BinarySearchFunc(regions.list, p, func(r *hostRegion, p uintptr) int {
		switch {
		case r.base()+uintptr(len(r.mem)) <= p:
			return -1
		case r.base() > p:
			return 1
		}
		return 0
	})
	if i < len(regions.list) {
		if r := regions.list[i]; r.base() <= p && p < r.base()+uintptr(len(r.mem)) {
			return r
		}
	}
	return nil
}

// mapPoints returns n points of type P off the heap (registered as a region
// read from src at off) when opt asks for it and the section is large
// enough, else on the heap; regs collects the regions made.
func mapPoints[P bls.G1Affine | bls.G2Affine](n int, opt Options, off int, regs *[]*hostRegion) []P {
	var p P
	size := int(unsafe.Sizeof(p))
	if regs == nil || !opt.OffHeap || opt.src == nil || n*size < offHeapMin {
		return make([]P, n)
	}
	mem, err := syscall.Mmap(-1, 0, n*size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return make([]P, n) // the heap still works
	}
	// Huge pages where the kernel has them: a 2^27 key's first touch is
	// 19 M page faults in 4 KiB pages (advice only; an error changes
	// nothing).
	_ = syscall.Madvise(mem, syscall.MADV_HUGEPAGE)
	r := &hostRegion{mem: mem, size: size, src: *opt.src, off: off, freed: make([]uint64, (len(mem)/pageSize+64)/64)}
	regions.Lock()
	i, _ := slices.BinarySearchFunc(regions.list, r.base(), func(x *hostRegion, b uintptr) int {
		if x.base() < b {
			return -1
		}
		return 1
	})
	regions.list = slices.Insert(regions.list, i, r)
	regions.Unlock()
	*regs = append(*regs, r)
	return unsafe.Slice((*P)(unsafe.Pointer(unsafe.SliceData(mem))), n)
}

// keyHost is what a key read off the heap holds outside the garbage
// collector: its sections' mappings and its file's descriptor.
type keyHost struct {
	regs []*hostRegion
	file *keptFile // nil: none kept
}

// unmapRegions unregisters and unmaps k's regions and closes its file
// (the key that held them is gone).
func unmapRegions(k keyHost) {
	regions.Lock()
	regions.list = slices.DeleteFunc(regions.list, func(r *hostRegion) bool { return slices.Contains(k.regs, r) })
	regions.Unlock()
	for _, r := range k.regs {
		_ = syscall.Munmap(r.mem)
	}
	if k.file != nil {
		k.file.close()
	}
}

// collectRegions unmaps pk's regions and closes its file once pk is
// unreachable; with no key (the load failed, and nothing reads the
// regions any more) or no regions, at once.
func collectRegions(pk *ProvingKey, k keyHost) {
	if pk == nil || len(k.regs) == 0 {
		unmapRegions(k)
		return
	}
	runtime.AddCleanup(pk, unmapRegions, k)
}

// ReleaseHost gives back to the system the whole pages of [p, p+n) that
// lie in an off-heap section, but for the section's first and last page;
// the device must hold what they held, and nothing else may be reading
// them: it is called while the key loads, before anyone has it. Memory
// outside such a section, or of a section read from the file again since,
// is left alone.
func ReleaseHost(p unsafe.Pointer, n uintptr) {
	r := regionOf(uintptr(p))
	if r == nil || n == 0 {
		return
	}
	lo := int(uintptr(p) - r.base())
	hi := min(lo+int(n), len(r.mem))
	first, last := (lo+pageSize-1)/pageSize, hi/pageSize // whole pages [first, last)
	first = max(first, 1)
	last = min(last, (len(r.mem)-1)/pageSize) // the last page holds the last point
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held || first >= last {
		return
	}
	if syscall.Madvise(r.mem[first*pageSize:last*pageSize], syscall.MADV_DONTNEED) != nil {
		return
	}
	for pg := first; pg < last; pg++ {
		if r.freed[pg/64]&(1<<(pg%64)) == 0 {
			r.freed[pg/64] |= 1 << (pg % 64)
			r.nFree++
		}
	}
}

// EnsureHost makes sure the points in [p, p+n) are on the host: when any
// page of theirs was released, their section is decoded from its file
// again, and is not released after (a device that streams it would read
// it again at every proof). Memory that is not an off-heap
// section is always on the host.
func EnsureHost(p unsafe.Pointer, n uintptr) error {
	r := regionOf(uintptr(p))
	if r == nil || n == 0 {
		return nil
	}
	lo := int(uintptr(p) - r.base())
	hi := min(lo+int(n), len(r.mem))
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.anyFreed(lo/pageSize, (hi+pageSize-1)/pageSize) {
		return nil // a range the device holds may be released beside it
	}
	if err := r.reload(); err != nil {
		return err
	}
	r.held = true
	return nil
}

// anyFreed reports whether a page in [from, to) is released (r.mu held).
func (r *hostRegion) anyFreed(from, to int) bool {
	if r.nFree == 0 {
		return false
	}
	for pg := from; pg < to; pg++ {
		if r.freed[pg/64]&(1<<(pg%64)) != 0 {
			return true
		}
	}
	return false
}

// reload decodes the section's released pages from the file again (r.mu
// held): every point that overlaps one of them.
func (r *hostRegion) reload() error {
	// The file loaded (source.with), its stamp now: a path that names
	// another file meanwhile (a symlink flipped) is not read as this one,
	// and a file written in place since is refused.
	return r.src.open(func(f *os.File) error {
		return fileio.DecodeFile("params", f, r.reloadFrom)
	})
}

// reloadFrom is reload's decoding from the file's bytes: every point on
// a released page, decoded on every core in runs of 16 MiB (a 2^27-domain
// key's sections are ~700 M points); a point belongs to the run its first
// byte is in.
func (r *hostRegion) reloadFrom(o *fileio.Opened) error {
	data := o.Data
	if int64(len(data)) != r.src.stamp.Size {
		return r.src.changed()
	}
	n := len(r.mem) / r.size
	const run = 4096 * pageSize
	errs := make([]error, (len(r.mem)+run-1)/run)
	freed := func(pg int) bool { return r.freed[pg/64]&(1<<(pg%64)) != 0 }
	par.For(len(errs), func(k int) {
		lo, hi := k*run, min(len(r.mem), (k+1)*run)
		errs[k] = fileio.Guard(data, func() error {
			for i := (lo + r.size - 1) / r.size; i < n && i*r.size < hi; i++ {
				if !freed(i*r.size/pageSize) && !freed(((i+1)*r.size-1)/pageSize) {
					continue
				}
				if err := r.decodeAt(data, i); err != nil {
					return err
				}
			}
			return nil
		})
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	clear(r.freed)
	r.nFree = 0
	return nil
}

// decodeAt decodes the section's point i from the file into the mapping.
func (r *hostRegion) decodeAt(data []byte, i int) error {
	enc := G1Uncompressed
	if r.size != int(unsafe.Sizeof(bls.G1Affine{})) {
		enc = G2Uncompressed
	}
	at := r.off + i*enc
	if at+enc > len(data) {
		return fmt.Errorf("params: %s: point %d beyond the file", r.src.path, i)
	}
	dst := unsafe.Pointer(&r.mem[i*r.size])
	if enc == G1Uncompressed {
		return decodeG1(data[at:], (*bls.G1Affine)(dst), false)
	}
	return decodeG2(data[at:], (*bls.G2Affine)(dst), false)
}

// ReleaseHost gives back the host pages of pk's off-heap sections (see
// the package function), B_G2's too when withG2; the devices must hold
// every one of them.
func (pk *ProvingKey) ReleaseHost(withG2 bool) {
	for i, s := range pk.sections() {
		if withG2 || i < 4 {
			ReleaseHost(s.p, s.n)
		}
	}
}

// HostBytes returns the bytes of pk's point sets that are on the host now:
// all of them but the pages given back.
func (pk *ProvingKey) HostBytes() uint64 {
	var total uint64
	for _, s := range pk.sections() {
		total += uint64(s.n)
		if r := regionOf(uintptr(s.p)); r != nil && s.n > 0 {
			r.mu.Lock()
			total -= uint64(r.nFree) * pageSize
			r.mu.Unlock()
		}
	}
	return total + uint64(len(pk.IC))*uint64(unsafe.Sizeof(bls.G1Affine{}))
}

type span struct {
	p unsafe.Pointer
	n uintptr
}

// sections returns pk's query sections: H, L, A, B_G1, B_G2.
func (pk *ProvingKey) sections() [5]span {
	var out [5]span
	for i, s := range [][]bls.G1Affine{pk.H, pk.L, pk.A, pk.BG1} {
		out[i] = span{unsafe.Pointer(unsafe.SliceData(s)), uintptr(len(s)) * unsafe.Sizeof(bls.G1Affine{})}
	}
	out[4] = span{unsafe.Pointer(unsafe.SliceData(pk.BG2)), uintptr(len(pk.BG2)) * unsafe.Sizeof(bls.G2Affine{})}
	return out
}
