package engine

import (
	"container/list"
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
// bound (guarded by Engine.mu).
type retention struct {
	maxJobs  int
	maxBytes uint64
	bytes    uint64
	order    list.List // of *job
	byID     map[string]*list.Element
}

func newRetention(maxJobs int, maxBytes uint64) *retention {
	if maxJobs <= 0 {
		maxJobs = FinishedKept
	}
	if maxBytes == 0 {
		maxBytes = FinishedKeptBytes
	}
	return &retention{maxJobs: maxJobs, maxBytes: maxBytes, byID: map[string]*list.Element{}}
}

// add keeps j (a job of the same id is replaced) and drops the oldest jobs
// past the bounds; j itself is kept even when it alone is over the bytes.
func (r *retention) add(j *job, bytes uint64) {
	r.forget(j.id)
	j.keptBytes = bytes
	r.byID[j.id] = r.order.PushBack(j)
	r.bytes += bytes
	for r.order.Len() > 1 && (r.order.Len() > r.maxJobs || r.bytes > r.maxBytes) {
		r.forget(r.order.Front().Value.(*job).id)
	}
}

func (r *retention) get(id string) *job {
	if el, ok := r.byID[id]; ok {
		return el.Value.(*job)
	}
	return nil
}

// forget drops job id, if kept.
func (r *retention) forget(id string) {
	el, ok := r.byID[id]
	if !ok {
		return
	}
	j := r.order.Remove(el).(*job)
	delete(r.byID, id)
	r.bytes -= j.keptBytes
}

func (r *retention) each(fn func(*job)) {
	for el := r.order.Front(); el != nil; el = el.Next() {
		fn(el.Value.(*job))
	}
}
