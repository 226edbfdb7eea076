package cuda

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/params"
)

// pointStore is what the residency policy needs of a device for one group
// (affine points P, Jacobian results R): upload a point set, run an MSM
// over (a prefix of) a resident set, free a set, check the first n points
// of a set for subgroup membership (the number outside it and the least
// such index, −1 when none).
type pointStore[P any, R any] interface {
	upload(points []P) (any, error)
	msm(h any, scalars []fr.Element) (R, error)
	free(h any)
	// checkSubgroup checks points [offset, offset+n) of a set; first is
	// an index in the set.
	checkSubgroup(h any, offset, n int) (bad, first int, err error)
}

// fillStore is what a device offers for a set filled in parts (a
// parameter file's section checked as it is decoded): a set of n points
// whose contents are undefined until filled, range by range.
type fillStore[P any] interface {
	alloc(n int) (any, error)
	fill(h any, offset int, points []P) error
}

// streamStore is what a device offers for sets that do not stay
// resident (cuzk_cuda.h's streamers): scalar vectors on the device, two
// chunk buffers filled by put while the other is summed, and page-locking
// of the host points so that the puts run at the link's rate beside the
// MSMs. streamMSM sums the chunk [offset, offset+n) of a set of setN
// points, which go in order: the device keeps the set's bucket sums and
// returns the set's result with its last chunk, the identity with the
// others.
type streamStore[P any, R any] interface {
	uploadScalars(v []fr.Element) (any, error)
	freeScalars(h any)
	newStream(chunk int) (any, error)
	put(st any, slot int, points []P) error
	streamMSM(st any, slot int, scalars any, offset, n, setN int) (R, error)
	// takeCopyStats returns the bytes the streamer copied and the
	// nanoseconds the copies took since the last call.
	takeCopyStats(st any) (bytes, ns uint64)
	freeStream(st any)
	pin(points []P) error
	unpin(points []P)
}

// jacobian is the group arithmetic the host does on results (*bls.G1Jac
// and *bls.G2Jac): streamed chunks are added, window sums combined.
type jacobian[R any] interface {
	*R
	AddAssign(*R) *R
	DoubleAssign() *R
}

// vram is a device's byte budget for resident point sets, shared by the G1
// and G2 sets, and its memory plan under a cap (devmem.go).
type vram struct {
	mu     sync.Mutex
	budget uint64
	used   uint64
	plan   memPlan
	rows   int // the largest partition the engine announced (CheckRows); 0: none yet
	// largest is the most points of a set handled so far: before the
	// engine announces a partition (a key's sets are made resident as it
	// is loaded and checked), the plan assumes partitions of its domain.
	largest int
}

// residency keeps parameter point sets resident in VRAM within the
// device's budget — an H200 holds a whole 32 GiB PoRep SRS, so each proof
// then moves only its scalars — and streams a set that does not fit
// through the device in chunks (upload, MSM, free), never falling back to
// the CPU.
type residency[P comparable, R any, PR jacobian[R]] struct {
	store pointStore[P, R]
	mem   *vram
	// chunk is the points a streamed chunk (chunkSize): changed only
	// under stMu (shrinkChunk), read anywhere
	chunk atomic.Int64

	sets   map[setKey[P]]any // guarded by mem.mu
	pinned map[setKey[P]][]P // host sets page-locked for streaming (nil: could not be); guarded by mem.mu

	stMu   sync.Mutex // one streamed MSM at a time uses the streamer
	st     any        // the streamer, made on first use and kept
	staged *staged[P] // a set's first chunk put ahead of its MSM (stage); guarded by stMu

	streamedChunks atomic.Int64
	stagedChunks   atomic.Int64 // first chunks put ahead by stage and used
	streamedBytes  atomic.Int64 // host-to-device bytes of points streamed for MSMs
	copyNanos      atomic.Int64 // the time those copies took
}

// staged is a set's first chunk put into the streamer's slot 0 ahead of
// the set's MSM (residency.stage), by a goroutine that reports on done.
type staged[P comparable] struct {
	key  setKey[P]
	done chan error
}

// setKey identifies a host point slice; the fingerprint (first and last
// points) guards against a new slice reusing a freed one's address.
type setKey[P comparable] struct {
	ptr         uintptr
	n           int
	first, last P
}

func keyOf[P comparable](points []P) setKey[P] {
	return setKey[P]{ptr: uintptr(unsafe.Pointer(unsafe.SliceData(points))), n: len(points), first: points[0], last: points[len(points)-1]}
}

// onHost makes sure points are on the host before the device reads them
// there: a key's section given back once a device held it is read from
// its file again (params.EnsureHost).
func onHost[P any](points []P) error {
	if len(points) == 0 {
		return nil
	}
	return params.EnsureHost(span(points))
}

// offHost gives back the host pages of points, which the device holds
// (params.ReleaseHost: only a key's off-heap sections are).
func offHost[P any](points []P) {
	if len(points) > 0 {
		params.ReleaseHost(span(points))
	}
}

// span is the host bytes of points.
func span[P any](points []P) (unsafe.Pointer, uintptr) {
	return unsafe.Pointer(unsafe.SliceData(points)), uintptr(len(points)) * uintptr(pointBytes[P]())
}

func pointBytes[P any]() uint64 {
	var p P
	return uint64(unsafe.Sizeof(p))
}

func newResidency[P comparable, R any, PR jacobian[R]](store pointStore[P, R], mem *vram) *residency[P, R, PR] {
	chunk := int(mem.budget / pointBytes[P]() / 2)
	chunk = max(chunk, 1<<16)
	if planned := mem.plan.chunkOf(pointBytes[P]()); mem.plan.cap > 0 || chunk > planned && planned > 0 {
		chunk = planned
	}
	r := &residency[P, R, PR]{store: store, mem: mem, sets: map[setKey[P]]any{}, pinned: map[setKey[P]][]P{}}
	r.chunk.Store(int64(chunk))
	return r
}

// chunkSize is the points a streamed chunk.
func (r *residency[P, R, PR]) chunkSize() int { return int(r.chunk.Load()) }

// shrinkChunk makes streamed chunks chunk points when they are larger
// (CheckRows: a partition whose h stage needs the room of larger stream
// buffers), remaking a streamer made with larger buffers: at once, while
// the device has room for it (handle).
func (r *residency[P, R, PR]) shrinkChunk(chunk int) {
	r.stMu.Lock()
	defer r.stMu.Unlock()
	if chunk >= r.chunkSize() {
		return
	}
	r.chunk.Store(int64(chunk))
	if r.st == nil {
		return
	}
	ss := r.store.(streamStore[P, R])
	r.drainStagedLocked()
	ss.freeStream(r.st)
	r.st = nil
	if st, err := ss.newStream(chunk); err == nil {
		r.st = st
	}
}

// handle returns the resident copy of points, uploading it if it fits in
// the budget; nil when it does not fit (the caller streams).
func (r *residency[P, R, PR]) handle(points []P) (any, error) {
	k := keyOf(points)
	r.mem.mu.Lock()
	defer r.mem.mu.Unlock()
	if h, ok := r.sets[k]; ok {
		return h, nil
	}
	size, fits := r.fitsLocked(len(points))
	if !fits {
		return nil, nil
	}
	h, err := r.store.upload(points)
	if err != nil {
		return nil, nil // out of device memory, say: stream instead
	}
	r.sets[k] = h
	r.mem.used += size
	return h, nil
}

// warm makes points resident now when they fit (handle), so that the first
// MSM over them does not upload them; a set that will stream is
// page-locked now instead, which the first streamed MSM would otherwise do.
func (r *residency[P, R, PR]) warm(points []P) error {
	if len(points) == 0 {
		return nil
	}
	h, err := r.handle(points)
	if err != nil || h != nil {
		return err
	}
	if ss, ok := r.store.(streamStore[P, R]); ok {
		r.pinOnce(ss, points)
		// The stream buffers now, while the device has room for them:
		// made at the first streamed MSM, a partition's a, b, c copied up
		// ahead beside its query stage could take their room (2^27 on an
		// 80 GB device, B_G2 streamed), and the MSM would go a chunk at a
		// time through fresh device buffers. A device without room now
		// makes them at that MSM.
		r.stMu.Lock()
		if r.st == nil {
			if st, err := ss.newStream(r.chunkSize()); err == nil {
				r.st = st
			}
		}
		// A set read from its file as it streams: the host buffers those
		// reads use, now too (after a staged put, which may be reading
		// into one: another key's proofs may run while this one warms).
		// A set locked as its file's pages (a file in memory) is not read.
		if fp, ok := r.store.(filePreparer); ok && r.st != nil && params.Released(span(points)) && !r.locked(points) {
			r.drainStagedLocked()
			_ = fp.prepareFile(r.st, min(r.chunkSize(), len(points))*int(pointBytes[P]()))
		}
		r.stMu.Unlock()
	}
	return nil
}

// filePreparer is offered by a device whose streamer reads a set given
// back to its file through host buffers of its own (filestream.go):
// prepareFile makes them for chunks of bytes, when the set is warmed
// rather than inside its first MSM.
type filePreparer interface {
	prepareFile(st any, bytes int) error
}

// fitsLocked reports whether a set of n points may stay resident, and its
// size; mem.mu held.
func (r *residency[P, R, PR]) fitsLocked(n int) (uint64, bool) {
	size := uint64(n) * pointBytes[P]()
	r.mem.largest = max(r.mem.largest, n)
	rows := r.mem.rows
	if rows == 0 {
		rows = rowsFor(r.mem.largest)
	}
	return size, r.mem.used+size <= r.mem.budget && r.mem.plan.residentFits(r.mem.used, size, rows)
}

// rangeCheck is the subgroup check of a set checked range by range while
// its points are decoded (beginCheck): each range goes up into the set's
// resident copy at its offset and is checked there, so that the device's
// checks run beside the decoding instead of after it, and the set is
// uploaded once for the check and the MSMs. A set that does not stay
// resident streams each range through the device instead.
type rangeCheck[P comparable, R any, PR jacobian[R]] struct {
	r      *residency[P, R, PR]
	points []P
	h      any    // the resident copy being filled; nil: ranges streamed
	size   uint64 // its bytes, counted in mem.used
}

// beginCheck starts a range-by-range check of points, whose contents are
// not yet decoded: the resident copy is made (empty) when the set fits.
func (r *residency[P, R, PR]) beginCheck(points []P) *rangeCheck[P, R, PR] {
	c := &rangeCheck[P, R, PR]{r: r, points: points}
	fs, ok := r.store.(fillStore[P])
	if !ok || len(points) == 0 {
		return c
	}
	r.mem.mu.Lock()
	defer r.mem.mu.Unlock()
	size, fits := r.fitsLocked(len(points))
	if !fits {
		return c
	}
	h, err := fs.alloc(len(points))
	if err != nil {
		return c // out of device memory, say: stream the ranges
	}
	c.h, c.size = h, size
	r.mem.used += size
	return c
}

// check checks points[from:to], decoded since beginCheck; ranges may be
// checked from several goroutines at once. first is an index in points.
func (c *rangeCheck[P, R, PR]) check(from, to int) (bad, first int, err error) {
	if from < 0 || to > len(c.points) || from > to {
		return 0, -1, fmt.Errorf("cuda: range %d..%d of a set of %d points", from, to, len(c.points))
	}
	if c.h == nil {
		bad, first, err = c.r.checkStreamed(c.points[from:to])
		if first >= 0 {
			first += from
		}
		return bad, first, err
	}
	if err := c.r.store.(fillStore[P]).fill(c.h, from, c.points[from:to]); err != nil {
		return 0, -1, err
	}
	bad, first, err = c.r.store.checkSubgroup(c.h, from, to-from)
	if err == nil && bad == 0 {
		// The device holds the range, checked: the host's copy of a key's
		// section goes as the file decodes (read again if the device's
		// copy is not kept).
		offHost(c.points[from:to])
	}
	return bad, first, err
}

// fill puts points[from:to], decoded since beginCheck and known valid,
// into the resident copy unchecked; a set that does not stay resident has
// nothing to keep (its MSMs stream it).
func (c *rangeCheck[P, R, PR]) fill(from, to int) error {
	if from < 0 || to > len(c.points) || from > to {
		return fmt.Errorf("cuda: range %d..%d of a set of %d points", from, to, len(c.points))
	}
	if c.h == nil {
		return nil
	}
	if err := c.r.store.(fillStore[P]).fill(c.h, from, c.points[from:to]); err != nil {
		return err
	}
	offHost(c.points[from:to])
	return nil
}

// done ends the check. complete: every range was checked and passed, and
// the points will not change: the resident copy is kept for the MSMs.
// Otherwise it is freed (an unchecked, failed or partly filled copy is
// never used).
func (c *rangeCheck[P, R, PR]) done(complete bool) {
	if c.h == nil {
		return
	}
	r := c.r
	r.mem.mu.Lock()
	defer r.mem.mu.Unlock()
	if complete {
		k := keyOf(c.points)
		if _, dup := r.sets[k]; !dup {
			r.sets[k] = c.h
			c.h = nil
			return
		}
	}
	r.store.free(c.h)
	r.mem.used -= c.size
	c.h = nil
}

// msm computes Σ scalars[i]·points[i] on the device.
func (r *residency[P, R, PR]) msm(points []P, scalars []fr.Element) (R, error) {
	var res R
	if len(points) == 0 {
		return res, nil
	}
	h, err := r.handle(points)
	if err != nil {
		return res, err
	}
	if h != nil {
		return r.store.msm(h, scalars)
	}
	if ss, ok := r.store.(streamStore[P, R]); ok {
		if sc, err := ss.uploadScalars(scalars); err == nil {
			res, err = r.streamMSM(points, sc)
			ss.freeScalars(sc)
			if !errors.Is(err, errNoStreamer) {
				return res, err
			}
		}
		// no room for the scalars or the stream buffers: a chunk at a time
	}
	return r.chunked(points, scalars)
}

// chunked computes Σ scalars[i]·points[i] a chunk at a time, each chunk
// uploaded, summed and freed in turn: the way without a streamer (a device
// store without one, or no room for its buffers).
func (r *residency[P, R, PR]) chunked(points []P, scalars []fr.Element) (R, error) {
	var res R
	err := r.stream(points, func(ch any, from, to int) error {
		part, err := r.store.msm(ch, scalars[from:to])
		if err == nil {
			PR(&res).AddAssign(&part)
			r.streamedBytes.Add(int64(to-from) * int64(pointBytes[P]()))
		}
		return err
	})
	return res, err
}

// errNoStreamer is wrapped when the stream buffers cannot be had.
var errNoStreamer = errors.New("no room for the stream buffers")

// streamDevice is streamMSM over device scalars s, or, when the stream
// buffers cannot be had, chunked over the scalars brought back to the
// host (download).
func (r *residency[P, R, PR]) streamDevice(points []P, s any, download func() ([]fr.Element, error)) (R, error) {
	res, err := r.streamMSM(points, s)
	if !errors.Is(err, errNoStreamer) {
		return res, err
	}
	host, derr := download()
	if derr != nil {
		return res, derr
	}
	return r.chunked(points, host)
}

// checkSubgroup checks points for membership of the prime-order subgroup
// on the device: the number outside it and the least such index (−1 when
// none). The set is made resident when it fits, so that the check shares
// the upload with the MSMs that follow (a parameter file's points);
// otherwise it streams through the device.
func (r *residency[P, R, PR]) checkSubgroup(points []P) (bad, first int, err error) {
	if len(points) == 0 {
		return 0, -1, nil
	}
	h, err := r.handle(points)
	if err != nil {
		return 0, -1, err
	}
	if h != nil {
		return r.store.checkSubgroup(h, 0, len(points))
	}
	return r.checkStreamed(points)
}

// checkStreamed is checkSubgroup over points streamed through the device.
func (r *residency[P, R, PR]) checkStreamed(points []P) (bad, first int, err error) {
	first = -1
	err = r.stream(points, func(ch any, from, to int) error {
		b, f, err := r.store.checkSubgroup(ch, 0, to-from)
		if err == nil && b > 0 && first < 0 {
			first = from + f
		}
		bad += b
		return err
	})
	if err != nil {
		return 0, -1, err
	}
	return bad, first, nil
}

// streamMSM computes Σ s[i]·points[i] over a set that is not resident,
// with s a device scalar vector (len(points) elements from its start):
// the points go up a chunk at a time into the streamer's two buffers, the
// next chunk's copy running (on its own goroutine) while the current one
// is summed. The host points are page-locked once, on the first MSM that
// streams them, and stay so until the set is forgotten.
func (r *residency[P, R, PR]) streamMSM(points []P, s any) (R, error) {
	var res R
	ss := r.store.(streamStore[P, R])
	r.stMu.Lock()
	defer r.stMu.Unlock()
	if r.st == nil {
		st, err := ss.newStream(r.chunkSize())
		if err != nil {
			return res, fmt.Errorf("cuda: %w: %w", errNoStreamer, err)
		}
		r.st = st
	}
	r.pinOnce(ss, points)
	res, err := r.streamChunks(ss, points, s)
	_, ns := ss.takeCopyStats(r.st)
	r.copyNanos.Add(int64(ns))
	if err != nil {
		// The streamer goes with the failure: freeing it waits for any
		// copy still in flight, and the next MSM starts afresh.
		r.drainStagedLocked()
		ss.freeStream(r.st)
		r.st = nil
	}
	return res, err
}

// stage puts the first chunk of points, a set that streams, into the
// streamer's first slot now, for its MSM to come: called where the link
// would otherwise be idle (during h's NTTs for H, during a resident L for
// A), so that the set's MSM starts on a chunk already there. A set that
// is or may become resident, a streamer not yet made or in use (another
// partition's streamed MSM: staging never waits), is left alone; staging
// allocates nothing; a failed put is dropped and the MSM puts the chunk
// again.
func (r *residency[P, R, PR]) stage(points []P) {
	if len(points) == 0 || !r.streams(points) {
		return
	}
	ss, ok := r.store.(streamStore[P, R])
	if !ok || !r.stMu.TryLock() {
		return
	}
	defer r.stMu.Unlock()
	if r.st == nil {
		return
	}
	r.drainStagedLocked()
	r.pinOnce(ss, points)
	first := points[:min(r.chunkSize(), len(points))]
	st := &staged[P]{key: keyOf(points), done: make(chan error, 1)}
	stream := r.st
	go func() { st.done <- ss.put(stream, 0, first) }()
	r.staged = st
}

// resident reports whether points have a resident copy.
func (r *residency[P, R, PR]) resident(points []P) bool {
	r.mem.mu.Lock()
	defer r.mem.mu.Unlock()
	_, ok := r.sets[keyOf(points)]
	return ok
}

// streams reports whether points' MSM will stream them: no resident copy,
// and none that the plan would make (handle).
func (r *residency[P, R, PR]) streams(points []P) bool {
	r.mem.mu.Lock()
	defer r.mem.mu.Unlock()
	if _, ok := r.sets[keyOf(points)]; ok {
		return false
	}
	_, fits := r.fitsLocked(len(points))
	return !fits
}

// takeStagedLocked waits for a staged put and reports whether it put
// points' first chunk into slot 0 (the chunk size is the residency's, the
// key holds the set's length); stMu held.
func (r *residency[P, R, PR]) takeStagedLocked(points []P) bool {
	st := r.staged
	if st == nil {
		return false
	}
	r.staged = nil
	err := <-st.done
	return err == nil && st.key == keyOf(points)
}

// drainStagedLocked waits for a staged put, whose chunk is then unused;
// stMu held.
func (r *residency[P, R, PR]) drainStagedLocked() {
	if r.staged != nil {
		<-r.staged.done
		r.staged = nil
	}
}

// aheadReader is offered by a device whose puts of a set given back to
// its file (params.ReleaseHost) read the chunk from the file before they
// copy it: readAhead reads points into slot's host buffer now, and the
// next put of those points into that slot copies them without reading.
// streamChunks reads chunk k+2 while chunk k+1 is copied and chunk k
// summed, so that a chunk costs the longest of the three rather than its
// read and its copy one after the other. It is called once the slot's
// last put has returned; the store waits for that put's copy, if still
// running, before writing the slot's buffer. A failed read leaves nothing
// held: the put reads again and reports.
type aheadReader[P any] interface {
	readAhead(st any, slot int, points []P) error
}

// streamChunks is streamMSM's loop over the chunks; stMu held.
func (r *residency[P, R, PR]) streamChunks(ss streamStore[P, R], points []P, s any) (R, error) {
	var res R
	n := len(points)
	chunk := r.chunkSize() // stMu held: unchanged until the end
	part := func(k int) []P { return points[k*chunk : min((k+1)*chunk, n)] }
	chunks := (n + chunk - 1) / chunk
	// reads[slot]: the read ahead into slot's buffer in flight, if any;
	// none outlives the loop (a failed streamer's buffers go with it).
	var reads [2]chan error
	ra, _ := ss.(aheadReader[P])
	readAhead := func(k int) {
		if ra == nil || k >= chunks {
			return
		}
		done := make(chan error, 1)
		reads[k%2] = done
		go func() { done <- ra.readAhead(r.st, k%2, part(k)) }()
	}
	defer func() {
		for _, rd := range reads {
			if rd != nil {
				<-rd
			}
		}
	}()
	if r.takeStagedLocked(points) {
		r.stagedChunks.Add(1)
		readAhead(1)
	} else {
		readAhead(1) // slot 1's last put has returned
		if err := ss.put(r.st, 0, part(0)); err != nil {
			return res, fmt.Errorf("cuda: streaming points 0..%d: %w", len(part(0)), err)
		}
	}
	for k := 0; k < chunks; k++ {
		next := make(chan error, 1)
		if k+1 < chunks {
			slot, rd := (k+1)%2, reads[(k+1)%2]
			reads[slot] = nil
			go func() {
				if rd != nil {
					<-rd // its error, if any, the put meets again
				}
				next <- ss.put(r.st, slot, part(k+1))
			}()
			readAhead(k + 2) // into slot k%2, whose last put (chunk k) has returned
		} else {
			next <- nil
		}
		sum, err := ss.streamMSM(r.st, k%2, s, k*chunk, len(part(k)), n)
		if perr := <-next; err == nil && perr != nil {
			err = fmt.Errorf("cuda: streaming points from %d: %w", (k+1)*chunk, perr)
		}
		if err != nil {
			return res, err
		}
		PR(&res).AddAssign(&sum)
		r.streamedChunks.Add(1)
		r.streamedBytes.Add(int64(len(part(k))) * int64(pointBytes[P]()))
	}
	return res, nil
}

// freeStreamer frees the streamer's device buffers (made again by the
// next streamed MSM).
func (r *residency[P, R, PR]) freeStreamer() {
	r.stMu.Lock()
	defer r.stMu.Unlock()
	r.drainStagedLocked()
	if r.st != nil {
		r.store.(streamStore[P, R]).freeStream(r.st)
		r.st = nil
	}
}

// pinOnce page-locks a streamed set's host memory, once; a set that
// cannot be locked streams through the staging buffers instead.
func (r *residency[P, R, PR]) pinOnce(ss streamStore[P, R], points []P) {
	k := keyOf(points)
	r.mem.mu.Lock()
	defer r.mem.mu.Unlock()
	if _, done := r.pinned[k]; done {
		return
	}
	r.pinned[k] = nil
	if ss.pin(points) == nil {
		r.pinned[k] = points
	}
}

// pinFile page-locks points when they stream and were given back to
// their file (pinOnce: the file's pages, where it is in memory).
func (r *residency[P, R, PR]) pinFile(points []P) {
	ss, ok := r.store.(streamStore[P, R])
	if !ok || len(points) == 0 || !r.streams(points) || !params.Released(span(points)) {
		return
	}
	r.pinOnce(ss, points)
}

// locked reports whether pinOnce page-locked points.
func (r *residency[P, R, PR]) locked(points []P) bool {
	r.mem.mu.Lock()
	defer r.mem.mu.Unlock()
	return r.pinned[keyOf(points)] != nil
}

// unpinLocked undoes pinOnce for the sets within [lo, hi); mem.mu held.
func (r *residency[P, R, PR]) unpinLocked(lo, hi uintptr) {
	ss, ok := r.store.(streamStore[P, R])
	for k, pts := range r.pinned {
		if k.ptr >= lo && k.ptr < hi {
			if ok && pts != nil {
				ss.unpin(pts)
			}
			delete(r.pinned, k)
		}
	}
}

// stream runs fn on each chunk of points uploaded in turn (a set that
// does not fit the budget), freeing each after it.
func (r *residency[P, R, PR]) stream(points []P, fn func(h any, from, to int) error) error {
	var scratch []P // a given-back chunk, decoded from the file
	chunk := r.chunkSize()
	for from := 0; from < len(points); from += chunk {
		to := min(from+chunk, len(points))
		up := points[from:to]
		if p, n := span(up); params.Released(p, n) {
			if scratch == nil {
				scratch = make([]P, min(chunk, len(points)))
			}
			up = scratch[:to-from]
			if err := params.ReadDecoded(p, n, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(up))), n)); err != nil {
				return fmt.Errorf("cuda: streaming points %d..%d: %w", from, to, err)
			}
		}
		ch, err := r.store.upload(up)
		if err != nil {
			return fmt.Errorf("cuda: streaming points %d..%d: %w", from, to, err)
		}
		err = fn(ch, from, to)
		r.store.free(ch)
		if err != nil {
			return err
		}
		r.streamedChunks.Add(1)
	}
	return nil
}

// close frees every resident set, the streamer, and unlocks the host sets
// it locked.
func (r *residency[P, R, PR]) close() {
	r.freeStreamer()
	r.mem.mu.Lock()
	defer r.mem.mu.Unlock()
	r.unpinLocked(0, ^uintptr(0))
	for k, h := range r.sets {
		r.store.free(h)
		delete(r.sets, k)
		r.mem.used -= uint64(k.n) * pointBytes[P]()
	}
}

// forget frees the resident sets that lie within points' memory: the set
// of points itself and any prefix or part of it uploaded on its own; and
// the streamer, whose buffers the key's sets may have been the last to use.
func (r *residency[P, R, PR]) forget(points []P) {
	if len(points) == 0 {
		return
	}
	r.freeStreamer()
	p, n := span(points)
	lo, hi := uintptr(p), uintptr(p)+n
	r.mem.mu.Lock()
	defer r.mem.mu.Unlock()
	r.unpinLocked(lo, hi)
	for k, h := range r.sets {
		if k.ptr >= lo && k.ptr < hi {
			r.store.free(h)
			delete(r.sets, k)
			r.mem.used -= uint64(k.n) * pointBytes[P]()
		}
	}
}

// unpin undoes pinOnce for points (UnpinKey), the streamer's staged
// chunk drained first: no copy reads them meanwhile.
func (r *residency[P, R, PR]) unpin(points []P) {
	if len(points) == 0 {
		return
	}
	r.stMu.Lock()
	r.drainStagedLocked()
	r.stMu.Unlock()
	p, n := span(points)
	r.mem.mu.Lock()
	defer r.mem.mu.Unlock()
	r.unpinLocked(uintptr(p), uintptr(p)+n)
}
