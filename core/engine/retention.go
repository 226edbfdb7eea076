package engine

import (
	"container/list"
	"sync"
	"unsafe"

	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
)

// Finished jobs wait for their caller to collect them (Await, Peek) in a
// retention list, oldest first. A job enters it as it ends, holding only
// what Await and status need: proofs, reports, error, state, timestamps;
// its request (witnesses, assignments, closures, the circuit and its
// parameters) is dropped once no partition reads it any more
// (releaseRequest). Awaiting through the service, or Forget, takes a job
// out at once; a caller that never collects its jobs loses the oldest
// ones first, past FinishedKept jobs or FinishedKeptBytes of results, and
// awaiting those is ErrUnknownJob.
const (
	// FinishedKept bounds the count: a host collects its jobs long before
	// 4,096 others end (bellperson awaits each proof it starts).
	FinishedKept = 4096
	// FinishedKeptBytes bounds the results' size: 64 MiB holds 4,096
	// ten-partition PoRep jobs (about 6 KB of proofs and reports each)
	// with room to spare, and caps what a host that never awaits can pin.
	FinishedKeptBytes = 64 << 20
)

// jobOverhead is what a retained job costs besides its proofs and
// reports: the job struct, its channels, contexts and map entry.
const jobOverhead = 1024

// resultBytes estimates the memory a finished job holds (j.mu held).
func resultBytes(j *job) uint64 {
	return resultSize(len(j.proofs), j.reports, j.err)
}

// Size estimates the memory r holds, as the retention counts it.
func (r *Result) Size() uint64 {
	return resultSize(len(r.Proofs), r.Partitions, r.Err)
}

func resultSize(proofs int, reports []PartitionReport, err error) uint64 {
	n := uint64(jobOverhead) + uint64(proofs)*uint64(unsafe.Sizeof(params.Proof{}))
	for i := range reports {
		n += uint64(unsafe.Sizeof(reports[i])) + uint64(len(reports[i].Stages))*uint64(unsafe.Sizeof(groth16.Stage{}))
	}
	if err != nil {
		n += uint64(len(err.Error()))
	}
	return n
}

// retention holds finished jobs, oldest first, within a count and a byte
// bound, and counts them by state. It has a lock of its own, taken last
// (after Engine.mu and a job's): the counts for Status are kept with the
// jobs, whose state never changes once they have ended, so that reading
// them locks no job.
type retention struct {
	mu       sync.Mutex
	maxJobs  int
	maxBytes uint64
	bytes    uint64
	order    list.List // of *retained
	byID     map[string]*list.Element
	states   map[JobState]int
}

// retained is a kept job with what it was counted as.
type retained struct {
	j     *job
	state JobState
	bytes uint64
}

func newRetention(maxJobs int, maxBytes uint64) *retention {
	if maxJobs <= 0 {
		maxJobs = FinishedKept
	}
	if maxBytes == 0 {
		maxBytes = FinishedKeptBytes
	}
	return &retention{maxJobs: maxJobs, maxBytes: maxBytes, byID: map[string]*list.Element{}, states: map[JobState]int{}}
}

// add keeps j, ended in state and holding bytes (a job of the same id is
// replaced), and drops the oldest jobs past the bounds; j itself is kept
// even when it alone is over the bytes.
func (r *retention) add(j *job, state JobState, bytes uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.forgetLocked(j.id)
	r.byID[j.id] = r.order.PushBack(&retained{j: j, state: state, bytes: bytes})
	r.bytes += bytes
	r.states[state]++
	for r.order.Len() > 1 && (r.order.Len() > r.maxJobs || r.bytes > r.maxBytes) {
		r.forgetLocked(r.order.Front().Value.(*retained).j.id)
	}
}

// get returns kept job id, or nil.
func (r *retention) get(id string) *job {
	r.mu.Lock()
	defer r.mu.Unlock()
	if el, ok := r.byID[id]; ok {
		return el.Value.(*retained).j
	}
	return nil
}

// forget drops job id, if kept.
func (r *retention) forget(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.forgetLocked(id)
}

func (r *retention) forgetLocked(id string) {
	el, ok := r.byID[id]
	if !ok {
		return
	}
	k := r.order.Remove(el).(*retained)
	delete(r.byID, id)
	r.bytes -= k.bytes
	if r.states[k.state]--; r.states[k.state] == 0 {
		delete(r.states, k.state)
	}
}

// counts returns the kept jobs by state.
func (r *retention) counts() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.states))
	for s, n := range r.states {
		out[string(s)] = n
	}
	return out
}

// size returns the kept jobs' count and bytes.
func (r *retention) size() (jobs int, bytes uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.order.Len(), r.bytes
}
