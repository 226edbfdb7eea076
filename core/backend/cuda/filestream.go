package cuda

import (
	"errors"
	"fmt"
	"sync"
	"syscall"
	"time"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk/cuzk/core/internal/par"
	"github.com/cuzk/cuzk/core/params"
)

// Streaming a set whose host pages were given back (params.ReleaseHost):
// each chunk is read from the parameter file as stored there
// (params.ReadEncoded) into a host buffer of its slot, copied as it is,
// and converted on the device (cuzk_cuda_stream_put_file). The host then
// holds neither a decoded copy of the key nor a second copy of the file:
// a 2^27-domain key (~71 GB) in /dev/shm under a 24 or 16 GiB device cap.

// devStream is a streamer and the host buffers its file reads use, one a
// slot, mapped off the heap when a set that streams from its file is
// warmed (prepareFile), else on first use, and page-locked: their puts
// are direct copies on the copy stream (a staged copy moved 18.3 GB/s at
// 2^27 on an H100 host, against ~50 GB/s from locked memory), still
// running when the put returns, so a buffer is written only once its
// slot's copy is done (cuzk_cuda_stream_wait). A buffer that cannot be
// locked is copied through the staging buffers, done when the put
// returns.
type devStream struct {
	h      unsafe.Pointer
	lib    *Library
	raw    [2][]byte
	locked [2]bool
	// held[slot]: the points raw[slot] holds, read ahead (readAhead) for
	// the slot's next put; zero once that put has taken them.
	held [2]heldSpan
}

// heldSpan names a chunk by its first point and byte length.
type heldSpan struct {
	p unsafe.Pointer
	n uintptr
}

// readAhead reads points, a chunk of a set given back to its file, into
// slot's buffer for the slot's next put (aheadReader); points on the host
// need no read.
func (d deviceStore[P, R, PR]) readAhead(st any, slot int, points []P) error {
	s := st.(*devStream)
	p, n := span(points)
	if slot < 0 || slot > 1 || !params.Released(p, n) {
		return nil
	}
	s.held[slot] = heldSpan{}
	if b, err := d.b.views.bytes(p, n); b != nil || err != nil {
		return err // copied from the file's pages: nothing to read
	}
	_, err := d.readChunk(s, slot, p, n)
	if err == nil {
		s.held[slot] = heldSpan{p, n}
	}
	return err
}

// readChunk reads the file's n bytes of the points at p into slot's
// buffer, timed.
func (d deviceStore[P, R, PR]) readChunk(s *devStream, slot int, p unsafe.Pointer, n uintptr) ([]byte, error) {
	buf, err := s.rawBuf(slot, int(n))
	if err != nil {
		return nil, err
	}
	start := time.Now()
	err = params.ReadEncoded(p, n, buf)
	d.b.fileReadNanos.Add(int64(time.Since(start)))
	return buf, err
}

// rawBuf returns slot's buffer of n bytes, free to write (its slot's
// copy from it done), mapping a larger one when needed.
func (s *devStream) rawBuf(slot, n int) ([]byte, error) {
	if s.locked[slot] {
		if err := s.wait(slot); err != nil {
			return nil, err
		}
	}
	if len(s.raw[slot]) < n {
		s.freeRaw(slot)
		mem, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			return nil, fmt.Errorf("cuda: a host buffer of %d bytes for points read from the file: %w", n, err)
		}
		// Huge pages, faulted in on every core: at 2^27 the four
		// buffers are 4.8 GB, first touched inside a partition's lock.
		_ = syscall.Madvise(mem, syscall.MADV_HUGEPAGE)
		par.Touch(mem)
		s.raw[slot] = mem
		s.locked[slot] = s.lib != nil && s.lib.register(unsafe.Pointer(unsafe.SliceData(mem)), uintptr(n)) == nil
	}
	return s.raw[slot][:n], nil
}

// wait returns once slot's copy in flight, if any, is done.
func (s *devStream) wait(slot int) error { return s.lib.waitCopy(s.h, slot) }

// prepareFile maps both slots' buffers for chunks of bytes (filePreparer).
func (d deviceStore[P, R, PR]) prepareFile(st any, bytes int) error {
	s := st.(*devStream)
	for slot := range s.raw {
		if _, err := s.rawBuf(slot, bytes); err != nil {
			return err
		}
	}
	return nil
}

// freeRaw unmaps slot's buffer, its copies done (the streamer freed, or
// rawBuf's wait).
func (s *devStream) freeRaw(slot int) {
	if s.raw[slot] != nil {
		if s.locked[slot] {
			_ = s.lib.unregister(unsafe.Pointer(unsafe.SliceData(s.raw[slot])))
			s.locked[slot] = false
		}
		_ = syscall.Munmap(s.raw[slot])
		s.raw[slot] = nil
	}
}

// errFromFile: a set whose pages were given back is not page-locked; it
// streams from the file.
var errFromFile = errors.New("cuda: the points stream from their file: their host pages were given back")

// StreamsKeyFromFile reports whether every point set of pk (B_G2's when
// withG2) is resident or, streamed, could be read from pk's file once its
// host pages are given back (backend.FileStreamer): sections read off
// the heap from a file (params.InFile).
func (b *Backend) StreamsKeyFromFile(pk *params.ProvingKey, withG2 bool) bool {
	for _, s := range [][]bls.G1Affine{pk.H, pk.L, pk.A, pk.BG1} {
		if len(s) > 0 && !b.g1.resident(s) && !params.InFile(span(s)) {
			return false
		}
	}
	return !withG2 || len(pk.BG2) == 0 || b.g2.resident(pk.BG2) || params.InFile(span(pk.BG2))
}

// PinKeyFile page-locks the file's pages of pk's sets that stream and
// were given back, where the file is in memory (fileViews), now rather
// than at their first streamed MSM inside a partition's lock
// (backend.FileStreamer).
func (b *Backend) PinKeyFile(pk *params.ProvingKey) {
	for _, s := range [][]bls.G1Affine{pk.H, pk.L, pk.A, pk.BG1} {
		b.g1.pinFile(s)
	}
	b.g2.pinFile(pk.BG2)
}

// UnpinKey undoes the page-locking of pk's streamed sets, before their
// host pages are given back (backend.FileStreamer); they are not locked
// again while their pages are away (deviceStore.pin).
func (b *Backend) UnpinKey(pk *params.ProvingKey) {
	for _, s := range [][]bls.G1Affine{pk.H, pk.L, pk.A, pk.BG1} {
		b.g1.unpin(s)
	}
	b.g2.unpin(pk.BG2)
}

// fileViews are the page-locked read-only mappings of given-back sets
// whose parameter file is in memory (params.MapEncoded), by the set's
// first byte: a chunk of such a set is copied to the device straight from
// the file's pages, with no read and no host buffer (at 2^27 under a 24
// GiB cap the reads into those buffers, ~21 GB/s from /dev/shm beside the
// copies, set a partition's pace). Made when the set is page-locked for
// streaming (deviceStore.pin), undone when it is unlocked.
type fileViews struct {
	mu sync.Mutex
	m  map[uintptr]*fileView
}

// fileView is one set's mapping and the host addresses of its points.
type fileView struct {
	lo, hi uintptr
	v      *params.FileView
}

// lock maps and page-locks the file's pages of the n bytes of points at
// p; errFromFile (wrapped) when the file is not in memory or its pages
// cannot be locked: the set's chunks are then read from the file.
func (fv *fileViews) lock(lib *Library, p unsafe.Pointer, n uintptr) error {
	v, err := params.MapEncoded(p, n)
	if err != nil {
		return fmt.Errorf("%w: %v", errFromFile, err)
	}
	b := v.Bytes()
	if err := lib.registerReadOnly(unsafe.Pointer(unsafe.SliceData(b)), uintptr(len(b))); err != nil {
		_ = v.Close()
		return fmt.Errorf("%w: %v", errFromFile, err)
	}
	fv.mu.Lock()
	defer fv.mu.Unlock()
	if fv.m == nil {
		fv.m = map[uintptr]*fileView{}
	}
	fv.m[uintptr(p)] = &fileView{lo: uintptr(p), hi: uintptr(p) + n, v: v}
	return nil
}

// bytes returns the file's bytes of the n bytes of points at p when a
// locked view holds them (nil, nil when none does), after checking that
// the file is the one loaded.
func (fv *fileViews) bytes(p unsafe.Pointer, n uintptr) ([]byte, error) {
	fv.mu.Lock()
	defer fv.mu.Unlock()
	for _, w := range fv.m {
		if lo := uintptr(p); w.lo <= lo && lo+n <= w.hi {
			if err := w.v.Unchanged(); errors.Is(err, params.ErrNotInMemory) {
				return nil, nil // the descriptor closed: read by path, checked there
			} else if err != nil {
				return nil, err
			}
			return w.v.Bytes()[lo-w.lo : lo-w.lo+n], nil
		}
	}
	return nil, nil
}

// unlock undoes lock for the set at p and reports whether there was one;
// no copy may be reading it.
func (fv *fileViews) unlock(lib *Library, p unsafe.Pointer) bool {
	fv.mu.Lock()
	w := fv.m[uintptr(p)]
	delete(fv.m, uintptr(p))
	fv.mu.Unlock()
	if w == nil {
		return false
	}
	_ = lib.unregister(unsafe.Pointer(unsafe.SliceData(w.v.Bytes())))
	_ = w.v.Close()
	return true
}
