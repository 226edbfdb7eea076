package service

import (
	"fmt"
	"sort"

	"github.com/cuzk/cuzk/core/engine"
)

// Job handles. A handle names one job for the life of the process: the
// engine is replaced on Configure and numbers its own jobs afresh, so a
// handle remembers the engine its job runs on, and the engine id it is
// given is "<request id>#<handle>", which no other job of any engine
// carries. When an idle engine is replaced, the results its jobs ended
// with but nobody has awaited yet are moved into their handles (within the
// engine's bounds, engine.FinishedKept and engine.FinishedKeptBytes,
// counted over every handle holding one, oldest dropped first): awaiting
// such a handle returns its own proofs, or NOT_FOUND once it was dropped,
// never another job's result.

// jobRef is what a handle names.
type jobRef struct {
	eng   *engine.Engine // the engine the job runs on; nil once res is set
	id    string         // the job's id in eng
	reqID string         // the caller's request id ("" for none)
	res   *engine.Result // the result kept from a replaced engine
}

// handles is the service's handle table (guarded by Service.mu).
type handles struct {
	next  uint64
	refs  map[uint64]*jobRef
	named map[string]uint64 // a caller's request id → the handle that bears it
	// pruneAt is the table size at which handles whose job the engine no
	// longer keeps (never awaited, dropped by its bounds) are forgotten.
	pruneAt int
}

func newHandles() handles {
	return handles{refs: map[uint64]*jobRef{}, named: map[string]uint64{}, pruneAt: 2 * engine.FinishedKept}
}

// reserve allocates a handle for a job about to be submitted, refusing a
// request id that a job in flight bears (ErrDuplicateID, as the engine
// does for its own ids).
func (h *handles) reserve(reqID string) (uint64, *jobRef, error) {
	if reqID != "" {
		if prev, ok := h.refs[h.named[reqID]]; ok && prev.running() {
			return 0, nil, fmt.Errorf("%w: %q", engine.ErrDuplicateID, reqID)
		}
	}
	h.next++
	ref := &jobRef{id: fmt.Sprintf("%s#%d", reqID, h.next), reqID: reqID}
	h.refs[h.next] = ref
	if reqID != "" {
		h.named[reqID] = h.next
	}
	return h.next, ref, nil
}

// running reports whether the job is being submitted or is in flight.
func (r *jobRef) running() bool {
	if r.res != nil {
		return false
	}
	if r.eng == nil {
		return true // being submitted
	}
	_, ended, err := r.eng.Peek(r.id)
	return err == nil && !ended
}

// forget drops handle job.
func (h *handles) forget(job uint64) {
	ref, ok := h.refs[job]
	if !ok {
		return
	}
	delete(h.refs, job)
	if ref.reqID != "" && h.named[ref.reqID] == job {
		delete(h.named, ref.reqID)
	}
}

// prune forgets, when the table has grown past pruneAt, the handles whose
// job their engine no longer keeps; the amortised cost is constant per
// submission.
func (h *handles) prune() {
	if len(h.refs) < h.pruneAt {
		return
	}
	for job, ref := range h.refs {
		if ref.eng != nil && !ref.eng.Known(ref.id) {
			h.forget(job)
		}
	}
	h.pruneAt = max(2*len(h.refs), 2*engine.FinishedKept)
}

// harvest moves the results of old's jobs into their handles as old (idle,
// closed) is replaced, and bounds the results kept that way.
func (h *handles) harvest(old *engine.Engine) {
	for job, ref := range h.refs {
		if ref.eng != old {
			continue
		}
		res, ended, err := old.Peek(ref.id)
		if err != nil || !ended {
			h.forget(job) // dropped by the engine's bounds: NOT_FOUND
			continue
		}
		ref.res, ref.eng = &res, nil
	}
	var kept []uint64
	for job, ref := range h.refs {
		if ref.res != nil {
			kept = append(kept, job)
		}
	}
	sort.Slice(kept, func(a, b int) bool { return kept[a] > kept[b] }) // newest first
	var bytes uint64
	for i, job := range kept {
		bytes += h.refs[job].res.Size()
		if i >= engine.FinishedKept || bytes > engine.FinishedKeptBytes {
			h.forget(job)
		}
	}
}
