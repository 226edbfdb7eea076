package cuda

// The prep on the GPU (backend.Queries): the witness's aux values go up
// once and the density bitmaps select the A and B query scalars there,
// instead of the host gathering and uploading copies.

/*
#include "calls.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"time"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/r1cs"
)

// scalars is a device scalar vector (cuzk_cuda_scalars_*).
type scalars struct {
	b *Backend
	h unsafe.Pointer
	n int
}

func (s *scalars) free() { C.call_scalars_free(s.b.lib.scalarsFree, s.h) }

// download copies the vector back (for a point set that is streamed).
func (s *scalars) download() ([]fr.Element, error) {
	out := make([]fr.Element, s.n)
	if s.n == 0 {
		return out, nil
	}
	err := call("scalars download", func(e *C.char) C.int {
		return C.call_scalars_download(s.b.lib.scalarsDownload, s.h, ptr(out), e, errLen)
	})
	return out, err
}

// prefetch is one partition's copies to the device (backend.Prefetch),
// made by Prefetch and held by the caller, which hands it to QueryMSMs
// (the aux part) and HMSM (the a, b, c part); each takes its part, and
// Release frees what is left. The a, b, c part may be made from another
// goroutine while QueryMSMs runs on the aux part: mu guards both.
type prefetch struct {
	b   *Backend
	aux []fr.Element // the slice the aux part is a copy of
	mu  sync.Mutex
	// auxDev is the copy of aux (nil: not made, no room, or taken), abc
	// the copy of a, b, c (nil: not made, or taken); closed: released, or
	// the backend closed (a part made later is freed at once).
	auxDev *scalars
	abc    *abcPrefetch
	closed bool
}

// abcPrefetch is a copy of a, b, c started by a prefetch
// (cuzk_cuda_abc_upload), for HMSM on the same slices (key); aOnly: a
// alone went up (the device had room for one vector), and b and c go up
// when HMSM takes it (cuzk_cuda_abc_add).
type abcPrefetch struct {
	key   [3]*fr.Element
	n     int
	h     unsafe.Pointer
	aOnly bool
}

// Prefetch uploads aux (through the staging buffers: the query MSMs that
// run next need it whole) and returns the partition's prefetch, whose ABC
// then starts copying a, b, c on the copy stream when they are
// page-locked, so that the copy runs beside the query MSMs and HMSM finds
// them there. Aux goes first and alone: sharing the link with a, b, c it
// arrived ~30 ms later (H200, 2^24). Under a cap with room for one vector
// but not three, a goes up alone: h waits for a's copy before its first
// NTTs and for b's and c's only behind them (2^26 under 24 GiB: h waited
// 46 ms for a, 0 for b and c). A failed prefetch is dropped: the call that
// needs the data uploads it and reports any error.
func (b *Backend) Prefetch(aux []fr.Element) backend.Prefetch {
	p := b.newPrefetch(aux)
	// aux goes up before its region, maybe during another partition's:
	// the margin of one vector of n scalars stands for what that
	// partition may still allocate (a selection, or its h stage's a, b, c
	// beyond what its query stage frees), not counted exactly
	if len(aux) > 0 && b.fits(b.roomNow(len(aux), false), uint64(len(aux))*scalarSize, len(aux)) {
		if s, err := b.uploadScalars(aux); err == nil {
			put(p, &p.auxDev, s, (*scalars).free)
		}
	}
	return p
}

// newPrefetch returns an empty prefetch of aux, counted open until it is
// released.
func (b *Backend) newPrefetch(aux []fr.Element) *prefetch {
	p := &prefetch{b: b, aux: aux}
	b.preMu.Lock()
	if b.open == nil {
		b.open = map[*prefetch]struct{}{}
	}
	b.open[p] = struct{}{}
	b.preMu.Unlock()
	return p
}

// put stores v in the part *dst (freeing what was there), or frees v when
// the prefetch is closed.
func put[T any](p *prefetch, dst **T, v *T, free func(*T)) {
	p.mu.Lock()
	old := *dst
	if p.closed {
		old, v = v, nil
	}
	*dst = v
	p.mu.Unlock()
	if old != nil {
		free(old)
	}
}

// take removes the part *dst and returns it (nil: none).
func take[T any](p *prefetch, dst **T) *T {
	p.mu.Lock()
	defer p.mu.Unlock()
	v := *dst
	*dst = nil
	return v
}

// ABC starts copying a, b, c (a alone when the cap leaves room for one
// vector only, or h is lean: devmem.go), replacing any copy the prefetch
// held. Under a cap the copy is decided as the running region's own
// (roomNow): call it within the partition's region, after BeginRegion
// (groth16's uploads do).
func (p *prefetch) ABC(a, bb, c []fr.Element) {
	b := p.b
	n := len(a)
	if n < 2 || len(bb) != n || len(c) != n {
		return
	}
	vec := uint64(n) * scalarSize
	done := false
	room := b.roomNow(n, true)
	b.preMu.Lock()
	b.preLast = room
	b.preMu.Unlock()
	lean := b.plan().lean(n)
	switch {
	case !lean && b.fits(room, 3*vec, n): // lean: h takes b and c one at a time, from the host
		done = p.prefetchABC(a, bb, c, false)
	case b.fits(room, vec, n):
		done = p.prefetchABC(a, bb, c, true)
	}
	if !done {
		b.preRefused.Add(1)
	}
}

// prefetchABC starts copying a, b, c (aOnly: a alone) for HMSM on the
// same slices, and counts it; false: the upload failed.
func (p *prefetch) prefetchABC(a, bb, c []fr.Element, aOnly bool) bool {
	b := p.b
	x := &abcPrefetch{key: [3]*fr.Element{&a[0], &bb[0], &c[0]}, n: len(a), aOnly: aOnly}
	if aOnly {
		bb, c = nil, nil
	}
	var err error
	if x.h, err = b.uploadABC(a, bb, c); err != nil {
		return false
	}
	put(p, &p.abc, x, b.freeABC)
	if aOnly {
		b.preAOnly.Add(1)
	} else {
		b.preWhole.Add(1)
	}
	return true
}

// roomNow reads, under a cap, the count a prefetch for a partition of n
// rows is decided on (Cap 0: no cap, or the count could not be read):
// what the device holds, of it the MSM pool's reservation, and what the
// partition running there may still allocate. own: the prefetch is of the
// partition whose region runs (a, b, c: the engine asks for them within
// their region), whose query stage's vectors still to come are counted
// (queryStage); else one selection still to come is.
func (b *Backend) roomNow(n int, own bool) backend.PrefetchRoom {
	if b.mem == nil {
		return backend.PrefetchRoom{}
	}
	plan := b.plan()
	if plan.cap == 0 {
		return backend.PrefetchRoom{}
	}
	b.qsMu.Lock()
	m, err := b.Memory(false)
	query := uint64(n) * scalarSize
	if own {
		query = b.qs.extra(n)
	}
	b.qsMu.Unlock()
	if err != nil {
		return backend.PrefetchRoom{}
	}
	return backend.PrefetchRoom{Held: m.Held, Pool: m.Pool, Query: query, Cap: plan.cap}
}

// fits reports whether a prefetch of bytes for a partition of n rows may
// start beside the count r (roomNow) by the plan's rule (devmem.go's
// prefetchFits): always without a cap (a prefetch that does not fit then
// fails and is dropped), never when the count could not be read.
func (b *Backend) fits(r backend.PrefetchRoom, bytes uint64, n int) bool {
	if b.mem == nil {
		return true
	}
	b.mem.mu.Lock()
	plan, resident := b.mem.plan, b.mem.used > 0
	b.mem.mu.Unlock()
	if plan.cap == 0 {
		return true
	}
	if r.Cap == 0 {
		return false // the count could not be read
	}
	return plan.prefetchFits(r.Held, r.Pool, bytes, r.Query, n, resident)
}

// plan is the device's memory plan now (CheckRows may change its chunk).
func (b *Backend) plan() memPlan {
	b.mem.mu.Lock()
	defer b.mem.mu.Unlock()
	return b.mem.plan
}

// queryMem runs fn, an allocation or a free of QueryMSMs' vectors (nil:
// none), and records the stage's live and peak bytes after it, under qsMu
// (roomNow reads them with the device's count); live and peak 0: the
// stage is over.
func (b *Backend) queryMem(live, peak uint64, fn func() error) error {
	b.qsMu.Lock()
	defer b.qsMu.Unlock()
	var err error
	if fn != nil {
		err = fn()
	}
	b.qs = queryStage{state: stageActive, live: live, peak: peak}
	if peak == 0 {
		b.qs.state = stageOver
	}
	return err
}

// BeginRegion: the partition's region begins on the device, whose query
// stage will prove with aux and inputs scalars of inputs. Until QueryMSMs
// counts exactly, the stage may still upload aux (unless it was
// prefetched) and select up to inputs + len(aux) scalars, which a
// prefetch of the partition's a, b, c made meanwhile must leave room for.
func (p *prefetch) BeginRegion(inputs int) {
	auxUp := uint64(len(p.aux)) * scalarSize
	p.mu.Lock()
	if p.auxDev != nil {
		auxUp = 0
	}
	p.mu.Unlock()
	sel := uint64(inputs+len(p.aux)) * scalarSize
	p.b.qsMu.Lock()
	p.b.qs = queryStage{state: stageActive, peak: auxUp + sel}
	p.b.qsMu.Unlock()
}

// Release frees the parts that QueryMSMs and HMSM did not take; once.
func (p *prefetch) Release() {
	p.b.preMu.Lock()
	delete(p.b.open, p)
	p.b.preMu.Unlock()
	p.close()
}

// close frees what the prefetch holds and closes it.
func (p *prefetch) close() {
	p.mu.Lock()
	aux, abc := p.auxDev, p.abc
	p.auxDev, p.abc, p.closed = nil, nil, true
	p.mu.Unlock()
	if aux != nil {
		aux.free()
	}
	p.b.freeABC(abc)
}

// own returns pre as this backend's prefetch (nil: none, or another
// backend's).
func (b *Backend) own(pre backend.Prefetch) *prefetch {
	if p, ok := pre.(*prefetch); ok && p.b == b {
		return p
	}
	return nil
}

// freeABC frees a copy of a, b, c (nil: nothing).
func (b *Backend) freeABC(x *abcPrefetch) {
	if x != nil {
		C.call_abc_free(b.lib.abcFree, x.h)
	}
}

// takeABC returns pre's copy of a, b, c, with b's and c's copies started
// now when a went up alone (nil if there is none, or b and c cannot go up
// now: the caller uploads all three; a copy of other slices is freed).
// aOnly (lean h): a copy of a alone is returned as it is, and one of all
// three is freed.
func (b *Backend) takeABC(pre backend.Prefetch, a, bb, c []fr.Element, aOnly bool) unsafe.Pointer {
	p := b.own(pre)
	if p == nil || len(a) == 0 {
		return nil
	}
	x := take(p, &p.abc)
	if x == nil {
		return nil
	}
	if len(a) != x.n || len(bb) != x.n || len(c) != x.n || x.key != [3]*fr.Element{&a[0], &bb[0], &c[0]} || aOnly && !x.aOnly {
		b.freeABC(x)
		return nil
	}
	if x.aOnly && !aOnly && b.addBC(x.h, bb, c) != nil {
		b.freeABC(x)
		return nil
	}
	return x.h
}

// uploadABC starts copying a, b, c to the device (cuzk_cuda_abc_upload);
// bb and c nil: a alone, addBC puts them up later.
func (b *Backend) uploadABC(a, bb, c []fr.Element) (unsafe.Pointer, error) {
	var h unsafe.Pointer
	err := call("abc upload", func(e *C.char) C.int {
		return C.call_abc_upload(b.lib.abcUpload, C.int(b.dev), ptr(a), ptr(bb), ptr(c), C.size_t(len(a)), &h, e, errLen)
	})
	return h, err
}

// addBC starts copying b and c into a handle made with a alone
// (cuzk_cuda_abc_add).
func (b *Backend) addBC(h unsafe.Pointer, bb, c []fr.Element) error {
	return call("abc add", func(e *C.char) C.int { return C.call_abc_add(b.lib.abcAdd, h, ptr(bb), ptr(c), e, errLen) })
}

// releasePrefetches frees every prefetch left open (Close); a part made
// afterwards is freed at once.
func (b *Backend) releasePrefetches() {
	b.preMu.Lock()
	open := b.open
	b.open = nil
	b.preMu.Unlock()
	for p := range open {
		p.close()
	}
}

// takeAux returns pre's copy of aux (nil if there is none; one of another
// slice is freed).
func (b *Backend) takeAux(pre backend.Prefetch, aux []fr.Element) *scalars {
	p := b.own(pre)
	if p == nil || len(aux) == 0 {
		return nil
	}
	s := take(p, &p.auxDev)
	if s == nil {
		return nil
	}
	if len(p.aux) == len(aux) && &p.aux[0] == &aux[0] {
		return s
	}
	s.free()
	return nil
}

func (b *Backend) uploadScalars(v []fr.Element) (*scalars, error) {
	s := &scalars{b: b, n: len(v)}
	err := call("scalars upload", func(e *C.char) C.int {
		return C.call_scalars_upload(b.lib.scalarsUpload, C.int(b.dev), ptr(v), C.size_t(len(v)), &s.h, e, errLen)
	})
	return s, err
}

// selectScalars makes head followed by the elements of aux whose bit is
// set in bits.
func (b *Backend) selectScalars(aux *scalars, head []fr.Element, bits *r1cs.Bitmap) (*scalars, error) {
	if bits.Len != aux.n {
		return nil, fmt.Errorf("cuda: density bitmap of %d bits for %d scalars", bits.Len, aux.n)
	}
	s := &scalars{b: b}
	var n C.size_t
	var none uint64
	words := unsafe.Pointer(&none) // never a nil pointer; the bitmap is shared, so never appended to
	if len(bits.Words) > 0 {
		words = unsafe.Pointer(&bits.Words[0])
	}
	err := call("scalars select", func(e *C.char) C.int {
		return C.call_scalars_select(b.lib.scalarsSelect, aux.h, ptr(head), C.size_t(len(head)), (*C.uint64_t)(words), &s.h, &n, e, errLen)
	})
	s.n = int(n)
	return s, err
}

// msmOn runs Σ s[i]·points[i] over the resident copy of points, or, when
// the set is streamed, through the streamer with s on the device (over s
// brought back to the host when there is no room for the stream buffers).
func msmOn[P comparable, R any, PR jacobian[R]](r *residency[P, R, PR], fn unsafe.Pointer, points []P, s *scalars) (R, error) {
	var res R
	if len(points) != s.n {
		return res, fmt.Errorf("cuda: %d points for %d selected scalars", len(points), s.n)
	}
	if s.n == 0 {
		return res, nil
	}
	h, err := r.handle(points)
	if err != nil {
		return res, err
	}
	if h == nil {
		return r.streamDevice(points, s, s.download)
	}
	var ws windowSums[R]
	err = call("msm", func(e *C.char) C.int {
		return C.call_mres(fn, groupOf[P](), h.(unsafe.Pointer), s.h, unsafe.Pointer(&ws), e, errLen)
	})
	if err != nil {
		return res, err
	}
	return combine[R, PR](&ws)
}

// QueryMSMs uploads aux once, selects the A and B scalars on the GPU with
// the density bitmaps and runs the L, A, B_G1 and (q.BG2 set) B_G2 MSMs.
func (b *Backend) QueryMSMs(q *backend.QueryInput) (*backend.QueryOutput, error) {
	out := &backend.QueryOutput{}
	start := time.Now()
	lap := func(i int) {
		now := time.Now()
		out.Times[i] = now.Sub(start)
		start = now
	}
	// the stage's vectors as Prefetch counts them (queryMem): aux when it
	// is uploaded here, beside A's selection, then B's
	aux := b.takeAux(q.Prefetch, q.Aux)
	var auxUp uint64
	if aux == nil {
		auxUp = uint64(len(q.Aux)) * scalarSize
	}
	sa, sb := uint64(len(q.A))*scalarSize, uint64(len(q.BG1))*scalarSize
	defer func() { _ = b.queryMem(0, 0, nil) }() // the stage is over
	var err error
	if aux == nil {
		err = b.queryMem(auxUp, auxUp+max(sa, sb), func() (err error) { aux, err = b.uploadScalars(q.Aux); return })
	} else {
		_ = b.queryMem(0, max(sa, sb), nil)
	}
	if err != nil {
		return nil, err
	}
	defer aux.free()
	// g1 runs one G1 query MSM, timed as out.Times[i]
	g1 := func(i int, name string, pts []bls.G1Affine, s *scalars, dst *bls.G1Jac) (err error) {
		if *dst, err = msmOn(b.g1, b.lib.msmG1Resident, pts, s); err != nil {
			return fmt.Errorf("cuda: %s: %w", name, err)
		}
		lap(i)
		return nil
	}
	if b.g1.resident(q.L) {
		// A's first chunk, and B_G2's into the G2 streamer (unused until
		// B_G2), go up while L's MSM runs on its resident copy and the
		// link is otherwise idle (sets that stream; residency.stage)
		b.g1.stage(q.A)
		if q.BG2 != nil {
			b.g2.stage(q.BG2)
		}
	}
	if err = g1(0, "l", q.L, aux, &out.L); err != nil {
		return nil, err
	}
	var a *scalars
	err = b.queryMem(auxUp+sa, auxUp+max(sa, sb), func() (err error) { a, err = b.selectScalars(aux, q.Inputs, q.AAux); return })
	if err != nil {
		return nil, err
	}
	err = g1(1, "a", q.A, a, &out.A)
	// before the B scalars are selected: two vectors of n at most (devmem.go's plan)
	_ = b.queryMem(auxUp, auxUp+sb, func() error { a.free(); return nil })
	if err != nil {
		return nil, err
	}
	var head []fr.Element
	for i := range q.Inputs {
		if q.BInput.Get(i) {
			head = append(head, q.Inputs[i])
		}
	}
	var bs *scalars
	err = b.queryMem(auxUp+sb, auxUp+sb, func() (err error) { bs, err = b.selectScalars(aux, head, q.BAux); return })
	if err != nil {
		return nil, err
	}
	defer bs.free()
	if err = g1(2, "b_g1", q.BG1, bs, &out.B1); err != nil {
		return nil, err
	}
	if q.BG2 != nil {
		if out.B2, err = msmOn(b.g2, b.lib.msmG2Resident, q.BG2, bs); err != nil {
			return nil, fmt.Errorf("cuda: b_g2: %w", err)
		}
		lap(3)
	}
	return out, nil
}
