package engine

import (
	"context"
	"fmt"

	"github.com/cuzk/cuzk/core/groth16"
)

// Dispatch: the dispatcher hands the queue's partitions, in priority order
// (and same-circuit batches), to the synthesis goroutines as tasks;
// finishTask takes a task out of the pipeline, whatever its outcome.

// task is one partition moving through the pipeline.
type task struct {
	job   *job
	idx   int
	n     int    // domain size
	bytes uint64 // reserved working set
	asg   *groth16.Assignment
	// auxPooled: asg.Aux is a pooled copy of the witness's aux (pinAux),
	// returned to the pool with a, b, c
	auxPooled bool
	// abcReleased: the partition's a, b, c are no longer read (inputs.go)
	abcReleased bool
	// abcCopy, when set, is closed when the copy of a host assignment's a,
	// b, c into asg ends (takeAssignment)
	abcCopy chan struct{}
	tl      Timeline
}

// dispatch feeds partitions to the synthesis goroutines in priority order.
func (e *Engine) dispatch() {
	defer e.wg.Done()
	for {
		t := e.nextTask()
		if t == nil {
			return
		}
		select {
		case e.synthQ <- t:
		case <-t.job.ctx.Done():
			e.finishTask(t, context.Cause(t.job.ctx))
		case <-e.closing:
			e.finishTask(t, ErrClosed)
			return
		}
	}
}

// nextTask blocks until a partition is ready to dispatch; nil when closing.
func (e *Engine) nextTask() *task {
	for {
		e.mu.Lock()
		if len(e.batch) > 0 {
			t := e.takePartition(e.batch[0])
			if e.batch[0].next == len(e.batch[0].req.Partitions) {
				e.batch = e.batch[1:]
			}
			e.mu.Unlock()
			return t
		}
		var j *job
		if e.q.Len() > 0 {
			j = e.q.items[0]
		}
		if j == nil {
			e.mu.Unlock()
			select {
			case <-e.kick:
				continue
			case <-e.closing:
				return nil
			}
		}
		if max := e.cfg.Scheduler.BatchMax; max > 1 && j.next == 0 {
			e.batch = e.q.takeSameCircuit(j.req.Circuit.ID, max)
			e.markDequeued(e.batch)
			if wait := e.cfg.Scheduler.BatchWait.D(); len(e.batch) < max && wait > 0 {
				e.mu.Unlock()
				select {
				case <-e.clock.After(wait):
				case <-e.closing:
					return nil
				}
				e.mu.Lock()
				more := e.q.takeSameCircuit(j.req.Circuit.ID, max-len(e.batch))
				e.markDequeued(more)
				e.batch = append(e.batch, more...)
			}
			e.mu.Unlock()
			continue
		}
		t := e.takePartition(j)
		if j.next == len(j.req.Partitions) {
			e.q.remove(j)
			j.queued = false
		}
		e.mu.Unlock()
		return t
	}
}

func (e *Engine) markDequeued(js []*job) {
	for _, j := range js {
		j.queued = false
	}
}

// takePartition makes the task for j's next partition (e.mu held).
func (e *Engine) takePartition(j *job) *task {
	t := &task{job: j, idx: j.next, n: len(j.req.Circuit.PK.H) + 1}
	t.tl.Queued = e.clock.Now()
	j.next++
	j.mu.Lock()
	if j.state == StateQueued {
		j.state = StateRunning
	}
	j.mu.Unlock()
	return t
}

// finishTask takes t out of the pipeline: its buffers go to the dealloc
// goroutine, its memory reservation is released, and the job learns of
// the outcome (err nil: the proof is in).
func (e *Engine) finishTask(t *task, err error) {
	if t.abcCopy != nil {
		<-t.abcCopy // nothing may write the buffers or read the host's a, b, c after this
	}
	if t.asg != nil {
		e.pool.put(t.asg.A, t.asg.B, t.asg.C)
		if t.auxPooled {
			e.pool.put(t.asg.Aux)
			t.auxPooled = false
		}
		t.asg = nil
	}
	if t.bytes > 0 {
		e.adm.release(t.bytes)
		t.bytes = 0
	}
	j := t.job
	if err != nil {
		e.dequeue(j)
		j.cancel(err) // stop the job's other partitions
	}
	j.mu.Lock()
	if err != nil && j.err == nil {
		j.err = fmt.Errorf("partition %d: %w", t.idx, err)
	}
	settleTask(j)
	e.maybeEnd(j)
	e.releaseRequest(j)
	j.mu.Unlock()
	// after the job has learnt of err, so that a waiting start sees it
	e.releaseABC(t)
}
