package engine

import (
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/internal/par"
)

// Big buffers (a, b, c: GiBs each at production size) live off the Go heap
// in anonymous mappings, are recycled through a pool keyed by element count,
// and are released only by the dealloc goroutine(s), one at a time by
// default. In the reference system, unbounded threads freeing ~37 and ~130
// GiB at once caused TLB-shootdown storms that stalled every core; a single
// freeing thread fixed it.

const elemSize = int(unsafe.Sizeof(fr.Element{}))

// mapElements returns n zeroed field elements in a fresh anonymous mapping,
// in huge pages where the kernel has them (advice only).
func mapElements(n int) ([]fr.Element, error) {
	b, err := syscall.Mmap(-1, 0, n*elemSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, fmt.Errorf("engine: mmap %d bytes: %w", n*elemSize, err)
	}
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	return unsafe.Slice((*fr.Element)(unsafe.Pointer(&b[0])), n), nil
}

// prefault touches every page of buf, on every core, before a pinner
// locks it: page-locking faults the pages in itself, one at a time on
// one thread (a 2^27 partition's four buffers are 16 GiB).
func prefault(buf []fr.Element) {
	par.Touch(unsafe.Slice((*byte)(unsafe.Pointer(&buf[0])), len(buf)*elemSize))
}

// unmapElements releases a buffer from mapElements.
func unmapElements(e []fr.Element) error {
	b := unsafe.Slice((*byte)(unsafe.Pointer(&e[0])), cap(e)*elemSize)
	return syscall.Munmap(b)
}

// pool hands out and recycles big buffers.
type pool struct {
	mu      sync.Mutex
	free    map[int][][]fr.Element // by element count
	pooled  uint64
	maxPool uint64
	// room, when set, bounds the pooled bytes further: the budget left
	// beside the partitions' reservations (admission.room).
	room func() uint64
	// hostFree, when set, is what the host could map now less the margin
	// (admission.hostFree): buffers mapped ahead (prefill) stop at it, as
	// the host's own buffers grow beside them (bellperson's copies of ten
	// partitions' a, b, c: 64 GB at 2^26).
	hostFree func() uint64

	queue   chan handoff // to the dealloc goroutines
	pending sync.WaitGroup
	done    sync.WaitGroup

	// pinner page-locks new buffers for a GPU (nil: none); pinned holds
	// the buffers it locked, which are unpinned before they are unmapped.
	pinner backend.HostPinner
	pinned map[*fr.Element]bool
	// pinnedBytes is their bytes, peakPinned its high-water mark (p.mu)
	pinnedBytes, peakPinned uint64
	// log, when set, has a debug line for each buffer mapped or freed
	// (page-locking costs hundreds of ms a GiB: where a call's time goes)
	log       *slog.Logger
	pinErrors atomic.Int64
	pinErr    atomic.Value // the last pin error's text

	// statistics
	allocs, reuses, frees atomic.Int64
	// relieved counts the idle buffers freed because the host ran short
	// (freeNow), relievedBytes their bytes
	relieved, relievedBytes atomic.Int64
	freedBytes              atomic.Int64
	active, maxActive       atomic.Int64 // concurrent frees
	mapped                  atomic.Int64 // bytes currently mapped
	peakMapped              atomic.Int64
}

// handoff is a buffer for the dealloc goroutines: to pool or free, or (a
// trimmed pool's) to free.
type handoff struct {
	buf  []fr.Element
	free bool
	done *sync.WaitGroup // when set, told once buf is freed
}

// newPool starts workers dealloc goroutines.
func newPool(maxPool uint64, workers int) *pool {
	p := &pool{free: map[int][][]fr.Element{}, pinned: map[*fr.Element]bool{}, maxPool: maxPool, queue: make(chan handoff, 1024)}
	for i := 0; i < workers; i++ {
		p.done.Add(1)
		go p.deallocLoop()
	}
	return p
}

// get returns a buffer of n elements, recycled when one is pooled. Its
// contents are undefined (the mat-vec overwrites every element).
func (p *pool) get(n int) ([]fr.Element, error) {
	p.mu.Lock()
	if l := p.free[n]; len(l) > 0 {
		buf := l[len(l)-1]
		p.free[n] = l[:len(l)-1]
		p.pooled -= uint64(n * elemSize)
		p.mu.Unlock()
		p.reuses.Add(1)
		return buf, nil
	}
	p.mu.Unlock()
	return p.alloc(n)
}

// alloc maps a new buffer of n elements and page-locks it for a GPU.
func (p *pool) alloc(n int) ([]fr.Element, error) {
	start := time.Now()
	buf, err := mapElements(n)
	if err != nil {
		return nil, err
	}
	if p.pinner != nil {
		prefault(buf)
		// a buffer that cannot be locked still works, copied more slowly
		if err := p.pinner.Pin(buf); err != nil {
			p.pinErrors.Add(1)
			p.pinErr.Store(err.Error())
		} else {
			p.mu.Lock()
			p.pinned[&buf[0]] = true
			p.pinnedBytes += uint64(n * elemSize)
			p.peakPinned = max(p.peakPinned, p.pinnedBytes)
			p.mu.Unlock()
		}
	}
	p.allocs.Add(1)
	now := p.mapped.Add(int64(n * elemSize))
	for peak := p.peakMapped.Load(); now > peak && !p.peakMapped.CompareAndSwap(peak, now); peak = p.peakMapped.Load() {
	}
	if p.log != nil {
		p.log.Debug("engine: buffer mapped", "bytes", n*elemSize, "page_locked", p.pinner != nil, "took", time.Since(start), "mapped_bytes", now)
	}
	return buf, nil
}

// prefill pools new buffers of the given sizes (element counts, one
// buffer each, less the buffers of those sizes already pooled) within the
// pool's limit, in order, until stop is closed: the buffers the first
// partitions of a key will take, mapped and page-locked ahead. Locking
// costs hundreds of ms a GiB (the first 10-circuit call at 2^24 spent ~6 s
// of its 9.6 s in it, on the H200's host). It returns the bytes added.
func (p *pool) prefill(sizes []int, stop <-chan struct{}) (added uint64) {
	have := map[int]int{}
	p.mu.Lock()
	for n, l := range p.free {
		have[n] = len(l)
	}
	p.mu.Unlock()
	for _, n := range sizes {
		if have[n] > 0 {
			have[n]--
			continue
		}
		select {
		case <-stop:
			return added
		default:
		}
		size := uint64(n * elemSize)
		limit := p.limit()
		p.mu.Lock()
		full := p.pooled+size > limit
		p.mu.Unlock()
		if full || p.hostFree != nil && size > p.hostFree() {
			return added
		}
		buf, err := p.alloc(n)
		if err != nil {
			return added
		}
		p.mu.Lock()
		if p.pooled+size > limit {
			p.mu.Unlock()
			p.unmap(buf)
			return added
		}
		p.free[n] = append(p.free[n], buf)
		p.pooled += size
		p.mu.Unlock()
		added += size
	}
	return added
}

// put hands buffers to the dealloc goroutine; it never blocks on a free.
func (p *pool) put(bufs ...[]fr.Element) {
	for _, b := range bufs {
		if b == nil {
			continue
		}
		p.pending.Add(1)
		p.queue <- handoff{buf: b}
	}
}

func (p *pool) deallocLoop() {
	defer p.done.Done()
	for h := range p.queue {
		if h.free {
			p.unmap(h.buf)
		} else {
			p.release(h.buf)
		}
		if h.done != nil {
			h.done.Done()
		}
		p.pending.Done()
	}
}

// release pools buf if the pool has room, and frees it otherwise.
func (p *pool) release(buf []fr.Element) {
	size := uint64(len(buf) * elemSize)
	limit := p.limit()
	p.mu.Lock()
	if p.pooled+size <= limit {
		p.free[len(buf)] = append(p.free[len(buf)], buf)
		p.pooled += size
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	p.unmap(buf)
}

func (p *pool) unmap(buf []fr.Element) {
	n := p.active.Add(1)
	for {
		m := p.maxActive.Load()
		if n <= m || p.maxActive.CompareAndSwap(m, n) {
			break
		}
	}
	size := int64(len(buf) * elemSize)
	p.mu.Lock()
	wasPinned := p.pinned[&buf[0]]
	delete(p.pinned, &buf[0])
	if wasPinned {
		p.pinnedBytes -= uint64(size)
	}
	p.mu.Unlock()
	if wasPinned {
		if err := p.pinner.Unpin(buf); err != nil {
			p.pinErrors.Add(1)
			p.pinErr.Store(err.Error())
		}
	}
	if err := unmapElements(buf); err == nil {
		p.frees.Add(1)
		p.freedBytes.Add(size)
		now := p.mapped.Add(-size)
		if p.log != nil {
			p.log.Debug("engine: buffer freed", "bytes", size, "mapped_bytes", now)
		}
	}
	p.active.Add(-1)
}

func (p *pool) limit() uint64 {
	if p.room == nil {
		return p.maxPool
	}
	return min(p.maxPool, p.room())
}

// trim hands pooled buffers to the dealloc goroutines until the pool holds
// no more than its limit (largest buffers first: fewest frees). A
// partition calls it once it has taken its buffers, so that the pool never
// frees what the partition would have reused.
func (p *pool) trim() {
	limit := p.limit()
	p.mu.Lock()
	out := p.takeLargestLocked(func(uint64) bool { return p.pooled > limit })
	p.mu.Unlock()
	p.freeAll(out, nil)
}

// takeIdle takes idle buffers out of the pool, largest first, until their
// bytes reach short or the pool is empty: the host needs the memory back
// (the engine's pressure watch, relieveHost, which frees them with
// freeNow).
func (p *pool) takeIdle(short uint64) [][]fr.Element {
	var taken uint64
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.takeLargestLocked(func(size uint64) bool {
		if taken >= short {
			return false
		}
		taken += size
		return true
	})
}

// freeNow frees bufs, taken out of the pool, through the dealloc
// goroutines (as every free) and returns their bytes once they are freed,
// counted as given back to the host.
func (p *pool) freeNow(bufs [][]fr.Element) uint64 {
	var wg sync.WaitGroup
	p.freeAll(bufs, &wg)
	wg.Wait()
	var bytes uint64
	for _, b := range bufs {
		bytes += uint64(len(b) * elemSize)
	}
	if len(bufs) > 0 {
		p.relieved.Add(int64(len(bufs)))
		p.relievedBytes.Add(int64(bytes))
	}
	return bytes
}

// takeLargestLocked takes pooled buffers out of the pool, largest first,
// while more(the next one's bytes) says so (p.mu held).
func (p *pool) takeLargestLocked(more func(size uint64) bool) [][]fr.Element {
	var out [][]fr.Element
	for {
		n := 0
		for k, l := range p.free {
			if len(l) > 0 && k > n {
				n = k
			}
		}
		if n == 0 || !more(uint64(n*elemSize)) {
			return out
		}
		l := p.free[n]
		out = append(out, l[len(l)-1])
		p.free[n] = l[:len(l)-1]
		p.pooled -= uint64(n * elemSize)
	}
}

// freeAll hands bufs to the dealloc goroutines to free; done, when set,
// is told of each free.
func (p *pool) freeAll(bufs [][]fr.Element, done *sync.WaitGroup) {
	for _, b := range bufs {
		p.pending.Add(1)
		if done != nil {
			done.Add(1)
		}
		p.queue <- handoff{buf: b, free: true, done: done}
	}
}

// drain waits until every buffer handed over has been pooled or freed.
func (p *pool) drain() { p.pending.Wait() }

// close stops the dealloc goroutines after the queue is drained and frees
// every pooled buffer.
func (p *pool) close() {
	p.drain()
	close(p.queue)
	p.done.Wait()
	p.mu.Lock()
	free := p.free
	p.free, p.pooled = map[int][][]fr.Element{}, 0
	p.mu.Unlock()
	for _, l := range free {
		for _, b := range l {
			p.unmap(b)
		}
	}
}

// poolStats is the pool part of the status.
type poolStats struct {
	Pooled        uint64 `json:"pooled_bytes"`
	PoolMax       uint64 `json:"pool_max_bytes"`
	Mapped        int64  `json:"mapped_bytes"`
	PeakMapped    int64  `json:"peak_mapped_bytes"`
	Allocs        int64  `json:"allocs"`
	Reuses        int64  `json:"reuses"`
	Frees         int64  `json:"frees"`
	FreedBytes    int64  `json:"freed_bytes"`
	MaxConcurrent int64  `json:"max_concurrent_frees"`
	// Pinned counts buffers page-locked for a GPU; PinErrors the buffers
	// that could not be (they are still used, copied more slowly).
	Pinned      int    `json:"pinned_buffers"`
	PinnedBytes uint64 `json:"pinned_bytes"`
	PeakPinned  uint64 `json:"peak_pinned_bytes"`
	PinErrors   int64  `json:"pin_errors"`
	PinError    string `json:"last_pin_error,omitempty"`
	// HostFrees counts the idle buffers given back because the host's
	// free memory fell below memory.safety_margin, HostFreedBytes their
	// bytes.
	HostFrees      int64 `json:"host_pressure_frees"`
	HostFreedBytes int64 `json:"host_pressure_freed_bytes"`
}

func (p *pool) stats() poolStats {
	p.mu.Lock()
	pooled, pinned, pinnedBytes, peakPinned := p.pooled, len(p.pinned), p.pinnedBytes, p.peakPinned
	p.mu.Unlock()
	last, _ := p.pinErr.Load().(string)
	return poolStats{Pooled: pooled, PoolMax: p.maxPool, Mapped: p.mapped.Load(), PeakMapped: p.peakMapped.Load(), Allocs: p.allocs.Load(),
		Reuses: p.reuses.Load(), Frees: p.frees.Load(), FreedBytes: p.freedBytes.Load(), MaxConcurrent: p.maxActive.Load(),
		Pinned: pinned, PinnedBytes: pinnedBytes, PeakPinned: peakPinned, PinErrors: p.pinErrors.Load(), PinError: last,
		HostFrees: p.relieved.Load(), HostFreedBytes: p.relievedBytes.Load()}
}
