package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cuzk/cuzk/core/config"
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
	// abcCopy, when set, is closed once asg's a, b, c hold their values or
	// never will (abcLater: a host assignment's copy, or a witness's
	// evaluation after the task was queued)
	abcCopy chan struct{}
	tl      Timeline
}

// dispatcher orders the queued jobs (the priority heap, and the
// same-circuit batch being dispatched) and makes their partitions into
// tasks, one at a time. Its lock guards the queue, the batch and each
// job's queue bookkeeping (job.index, seq, queued; next is written under
// the job's lock too, so that the job's readers see it); it takes a job's
// lock inside its own, never the reverse.
type dispatcher struct {
	clock     Clock
	batchMax  int           // scheduler.max_batch_size
	batchWait time.Duration // scheduler.max_batch_wait
	kick      chan struct{} // a job was queued

	mu    sync.Mutex
	q     queue
	batch []*job // jobs being dispatched together (same circuit)
}

func newDispatcher(s config.Scheduler, clk Clock) *dispatcher {
	return &dispatcher{clock: clk, batchMax: s.BatchMax, batchWait: s.BatchWait.D(), kick: make(chan struct{}, 1)}
}

// push queues j.
func (d *dispatcher) push(j *job) {
	d.mu.Lock()
	j.queued = true
	d.q.push(j)
	d.mu.Unlock()
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// remove takes j out of the queue and the current batch, so that no more
// of its partitions are dispatched.
func (d *dispatcher) remove(j *job) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if j.queued {
		d.q.remove(j)
		j.queued = false
	}
	for i, b := range d.batch {
		if b == j {
			d.batch = append(d.batch[:i], d.batch[i+1:]...)
			break
		}
	}
}

// depth returns the number of queued jobs per priority.
func (d *dispatcher) depth() [numPriorities]int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.q.depth()
}

// run feeds partitions to out in priority order until closing; drop ends
// a partition whose job ended, or that the engine's closing left undelivered.
func (d *dispatcher) run(out chan<- *task, closing <-chan struct{}, drop func(*task, error)) {
	for {
		t := d.next(closing)
		if t == nil {
			return
		}
		select {
		case out <- t:
		case <-t.job.ctx.Done():
			drop(t, context.Cause(t.job.ctx))
		case <-closing:
			drop(t, ErrClosed)
			return
		}
	}
}

// next blocks until a partition is ready to dispatch; nil when closing.
func (d *dispatcher) next(closing <-chan struct{}) *task {
	for {
		d.mu.Lock()
		if len(d.batch) > 0 {
			t := d.take(d.batch[0])
			if d.batch[0].next == len(d.batch[0].req.Partitions) {
				d.batch = d.batch[1:]
			}
			d.mu.Unlock()
			return t
		}
		var j *job
		if d.q.Len() > 0 {
			j = d.q.items[0]
		}
		if j == nil {
			d.mu.Unlock()
			select {
			case <-d.kick:
				continue
			case <-closing:
				return nil
			}
		}
		if max := d.batchMax; max > 1 && j.next == 0 {
			// j's request is read now: a job removed during the wait below
			// may have dropped it
			circuit := j.req.Circuit.ID
			d.batch = d.q.takeSameCircuit(circuit, max)
			markDequeued(d.batch)
			if wait := d.batchWait; len(d.batch) < max && wait > 0 {
				d.mu.Unlock()
				select {
				case <-d.clock.After(wait):
				case <-closing:
					return nil
				}
				d.mu.Lock()
				more := d.q.takeSameCircuit(circuit, max-len(d.batch))
				markDequeued(more)
				d.batch = append(d.batch, more...)
			}
			d.mu.Unlock()
			continue
		}
		t := d.take(j)
		if j.next == len(j.req.Partitions) {
			d.q.remove(j)
			j.queued = false
		}
		d.mu.Unlock()
		return t
	}
}

func markDequeued(js []*job) {
	for _, j := range js {
		j.queued = false
	}
}

// take makes the task for j's next partition (d.mu held).
func (d *dispatcher) take(j *job) *task {
	t := &task{job: j, idx: j.next, n: len(j.req.Circuit.PK.H) + 1}
	t.tl.Queued = d.clock.Now()
	j.mu.Lock()
	j.next++
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
		// named before the cancel: the job's watcher (Submit) may take
		// the cancel's cause as the job's error before j.err is set here
		err = fmt.Errorf("partition %d: %w", t.idx, err)
		e.disp.remove(j)
		j.cancel(err) // stop the job's other partitions
	}
	j.mu.Lock()
	if err != nil && j.err == nil {
		j.err = err
	}
	settleTask(j)
	e.maybeEnd(j)
	e.releaseRequest(j)
	j.mu.Unlock()
	// after the job has learnt of err, so that a waiting start sees it
	e.releaseABC(t)
}
