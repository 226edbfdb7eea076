package engine

import "fmt"

// The caller's memory and the engine's pipeline: a request's partitions
// may point into memory the caller owns (supraseal-c2's assignments). The
// engine says when it has stopped reading it, so that a host may free it:
//
//   - ABCReleased: no partition of the job reads Assignment.A, B or C any
//     more (each was copied into the engine's own buffers at synthesis, or
//     will never be read). bellperson frees a, b, c when start returns.
//   - Settled: no partition of the job is in the pipeline any more, so
//     nothing of the request is read again (inputs, aux, density bitmaps).
//     A job can end before that: a failed or cancelled job's running
//     partitions stop at their next check, after waiters were told.
//
// Every task the dispatcher takes is counted off when it lets go (its a, b,
// c copy ends; finishTask); partitions never taken are counted off when the
// job ends, because an ended job leaves the queue first and is never taken
// again.

// inputCounts tracks one job's partitions still reading caller memory
// (guarded by job.mu).
type inputCounts struct {
	abcLeft, tasksLeft int
	abcDone, settled   chan struct{}
}

func newInputCounts(n int) inputCounts {
	return inputCounts{abcLeft: n, tasksLeft: n, abcDone: make(chan struct{}), settled: make(chan struct{})}
}

// countOff lowers a counter by n and closes done when it reaches zero.
func countOff(left *int, n int, done chan struct{}) {
	if n <= 0 || *left <= 0 {
		return
	}
	*left -= n
	if *left <= 0 {
		close(done)
	}
}

// releaseABC records that t no longer reads its partition's a, b, c
// (once per task).
func (e *Engine) releaseABC(t *task) {
	if t.abcReleased {
		return
	}
	t.abcReleased = true
	j := t.job
	j.mu.Lock()
	countOff(&j.inputs.abcLeft, 1, j.inputs.abcDone)
	j.mu.Unlock()
}

// settleTask records that t has left the pipeline (j.mu held).
func settleTask(j *job) {
	countOff(&j.inputs.tasksLeft, 1, j.inputs.settled)
}

// settleUntaken counts off the partitions an ending job will never
// dispatch (j.mu held: next is written under it).
func settleUntaken(j *job) {
	n := len(j.req.Partitions) - j.next
	countOff(&j.inputs.abcLeft, n, j.inputs.abcDone)
	countOff(&j.inputs.tasksLeft, n, j.inputs.settled)
}

// ABCReleased returns a channel closed once no partition of job id reads
// its Assignment's A, B, C any more.
func (e *Engine) ABCReleased(id string) (<-chan struct{}, error) {
	j, err := e.lookup(id)
	if err != nil {
		return nil, err
	}
	return j.inputs.abcDone, nil
}

// Settled returns a channel closed once no partition of job id is in the
// pipeline, so that nothing the request points to is read again.
func (e *Engine) Settled(id string) (<-chan struct{}, error) {
	j, err := e.lookup(id)
	if err != nil {
		return nil, err
	}
	return j.inputs.settled, nil
}

func (e *Engine) lookup(id string) (*job, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.lookupLocked(id)
}

// lookupLocked finds job id in flight or kept (e.mu held).
func (e *Engine) lookupLocked(id string) (*job, error) {
	if j, ok := e.jobs[id]; ok {
		return j, nil
	}
	if j := e.finished.get(id); j != nil {
		return j, nil
	}
	return nil, fmt.Errorf("%w: %q", ErrUnknownJob, id)
}

// Peek returns job id's result if it has ended, without waiting.
func (e *Engine) Peek(id string) (Result, bool, error) {
	j, err := e.lookup(id)
	if err != nil {
		return Result{}, false, err
	}
	select {
	case <-j.done:
		return j.result(), true, nil
	default:
		return Result{}, false, nil
	}
}
