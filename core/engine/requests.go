package engine

import (
	"context"
	"errors"
	"fmt"
	"github.com/cuzk/cuzk/core/progress"
	"time"

	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
)

// A request's life in the engine: Submit checks and queues it as a job,
// Cancel and the deadline end it early, Await/Wait/Prove collect its
// result, Forget drops it once collected.

// errEnded cancels the context of a job that has ended.
var errEnded = errors.New("engine: job ended")

// Submit validates and queues a request and returns its id.
func (e *Engine) Submit(req Request) (string, error) {
	if err := e.check(&req); err != nil {
		return "", err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return "", ErrClosed
	}
	id := req.ID
	if id == "" {
		id = fmt.Sprintf("job-%d", e.nextID.Add(1))
	}
	if _, dup := e.jobs[id]; dup {
		return "", fmt.Errorf("%w: %q", ErrDuplicateID, id)
	}
	req.Progress = progress.Serialised(req.Progress)
	req.StageProgress = progress.Serialised(req.StageProgress)
	now := e.clock.Now()
	j := &job{id: id, req: req, circuit: req.Circuit.ID, priority: req.Priority, index: -1, state: StateQueued, done: make(chan struct{}), submitted: now,
		proofs: make([]params.Proof, len(req.Partitions)), reports: make([]PartitionReport, len(req.Partitions)),
		partDone: make([]bool, len(req.Partitions)), inputs: newInputCounts(len(req.Partitions))}
	deadline := req.Deadline
	if deadline.IsZero() && e.cfg.Scheduler.DefaultTimeout > 0 {
		deadline = now.Add(e.cfg.Scheduler.DefaultTimeout.D())
	}
	var expired <-chan time.Time // the deadline, on the engine's clock
	if !deadline.IsZero() {
		expired = e.clock.After(deadline.Sub(now))
	}
	j.ctx, j.cancel = context.WithCancelCause(context.Background())
	// The key's device memory is not released while the job may use it.
	keyDone := e.keys.use(req.Circuit.PK)
	// Cancellation and the deadline end the job even while it waits in
	// the queue; once it has settled, it lets go of its key.
	go func() {
		select {
		case <-j.ctx.Done():
			e.abort(j, context.Cause(j.ctx))
		case <-expired:
			e.abort(j, context.DeadlineExceeded)
		case <-j.done:
		}
		<-j.inputs.settled
		keyDone()
	}()
	e.jobs[id] = j
	e.disp.push(j) // under e.mu: a Cancel that finds the job finds it queued
	return id, nil
}

// check validates a request before it is queued.
func (e *Engine) check(req *Request) error {
	c := req.Circuit
	if c == nil || c.PK == nil {
		return errors.New("engine: request without a circuit and its parameters")
	}
	if len(req.Partitions) == 0 {
		return errors.New("engine: request without partitions")
	}
	if req.Priority < Low || req.Priority >= numPriorities {
		return fmt.Errorf("engine: invalid priority %d", req.Priority)
	}
	if err := e.place.check(req.Placement); err != nil {
		return err
	}
	n := len(c.PK.H) + 1
	for i, p := range req.Partitions {
		given := 0
		for _, ok := range []bool{p.Witness != nil, p.Assignment != nil, p.WitnessFunc != nil} {
			if ok {
				given++
			}
		}
		switch {
		case given > 1:
			return fmt.Errorf("engine: partition %d has more than one of a witness, a witness function and an assignment", i)
		case p.WitnessFunc != nil:
			if c.CS == nil {
				return fmt.Errorf("engine: partition %d has a witness function but circuit %q has no constraint system", i, c.ID)
			}
			if err := groth16.CheckKey(c.PK, c.CS); err != nil {
				return fmt.Errorf("engine: %w", err)
			}
		case p.Witness != nil:
			if c.CS == nil {
				return fmt.Errorf("engine: partition %d has a witness but circuit %q has no constraint system", i, c.ID)
			}
			if err := c.CS.CheckWitness(p.Witness); err != nil {
				return fmt.Errorf("engine: partition %d: %w", i, err)
			}
			if err := groth16.CheckKey(c.PK, c.CS); err != nil {
				return fmt.Errorf("engine: %w", err)
			}
		case p.Assignment != nil:
			a := p.Assignment
			if len(a.A) > n || len(a.B) != len(a.A) || len(a.C) != len(a.A) {
				return fmt.Errorf("engine: partition %d: a, b, c have %d/%d/%d elements, parameters allow %d", i, len(a.A), len(a.B), len(a.C), n)
			}
		default:
			return fmt.Errorf("engine: partition %d has neither a witness nor an assignment", i)
		}
		if ws := e.partitionBytes(req, i); !e.adm.fits(ws) {
			st := e.adm.stats()
			return fmt.Errorf("%w: partition %d needs %d bytes, memory.budget is %d, %d of it held by the loaded parameters", ErrTooLarge, i, ws, st.Budget, st.Keys)
		}
		if i == 0 {
			if err := e.place.checkRows(n); err != nil {
				return fmt.Errorf("%w: %w", ErrTooLarge, err)
			}
		}
	}
	return nil
}

// Cancel stops a job: queued partitions never start, running ones stop at
// their next check, and everything they hold is released. Cancelling a
// finished job is not an error.
func (e *Engine) Cancel(id string) error {
	e.mu.Lock()
	j, ok := e.jobs[id]
	if !ok {
		fin := e.finished.get(id) != nil
		e.mu.Unlock()
		if fin {
			return nil
		}
		return fmt.Errorf("%w: %q", ErrUnknownJob, id)
	}
	e.mu.Unlock()
	j.cancel(ErrCancelled)
	e.abort(j, ErrCancelled)
	return nil
}

// abort ends j with err: it leaves the queue, its running partitions are
// told to stop, and waiters get err at once.
func (e *Engine) abort(j *job, err error) {
	e.disp.remove(j)
	j.cancel(err)
	j.mu.Lock()
	if j.err == nil && j.state != StateDone {
		j.err = err
	}
	e.maybeEnd(j)
	j.mu.Unlock()
}

// maybeEnd finishes j once it can say no more (j.mu held): all proofs in,
// or an error. Partitions still running after an error stop at their next
// check and release what they hold in the background; a cancelled or
// expired job does not wait for them.
func (e *Engine) maybeEnd(j *job) {
	if j.state == StateDone || j.state == StateFailed || j.state == StateCancelled {
		return
	}
	switch {
	case j.err == nil && j.nDone == len(j.req.Partitions):
		j.state = StateDone
	case j.err != nil:
		j.state = StateFailed
		if errors.Is(j.err, ErrCancelled) {
			j.state = StateCancelled
		}
	default:
		return
	}
	j.ended = e.clock.Now()
	close(j.done)
	j.cancel(errEnded) // release the job's context
	e.metrics.ended(j)
	e.mu.Lock()
	settleUntaken(j)
	delete(e.jobs, j.id)
	e.finished.add(j, j.state, resultBytes(j))
	if j.inputs.tasksLeft <= 0 {
		dropRequest(j)
	}
	e.mu.Unlock()
}

// releaseRequest drops the request of an ended job once its last running
// partition has left the pipeline (j.mu held).
func (e *Engine) releaseRequest(j *job) {
	if !j.state.ended() || j.inputs.tasksLeft > 0 {
		return
	}
	e.mu.Lock()
	dropRequest(j)
	e.mu.Unlock()
}

// dropRequest lets go of everything the request holds: witnesses, host
// assignments, witness callbacks, the circuit and its parameters, the
// interlock (j.mu and e.mu held; nothing reads j.req any more: the job
// has left the queue and every task has finished).
func dropRequest(j *job) {
	j.req = Request{ID: j.req.ID}
}

// Forget drops finished job id from the jobs kept for Await (its caller
// has collected it); a job in flight or unknown is left alone.
func (e *Engine) Forget(id string) {
	e.mu.Lock()
	e.finished.forget(id)
	e.mu.Unlock()
}

// Known reports whether job id is in flight or kept for Await.
func (e *Engine) Known(id string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.jobs[id]
	return ok || e.finished.get(id) != nil
}

// Await waits up to timeout (0 = no limit) for job id to end and returns
// its result. A timeout returns context.DeadlineExceeded and leaves the job
// running.
func (e *Engine) Await(id string, timeout time.Duration) (Result, error) {
	ctx := context.Background()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	return e.Wait(ctx, id)
}

// Wait waits until job id ends or ctx is done.
func (e *Engine) Wait(ctx context.Context, id string) (Result, error) {
	e.mu.Lock()
	j, err := e.lookupLocked(id)
	e.mu.Unlock()
	if err != nil {
		return Result{}, err
	}
	select {
	case <-j.done:
		return j.result(), nil
	case <-ctx.Done():
		return Result{ID: id}, ctx.Err()
	}
}

// Prove submits req and waits for its proofs.
func (e *Engine) Prove(ctx context.Context, req Request) ([]params.Proof, []PartitionReport, error) {
	id, err := e.Submit(req)
	if err != nil {
		return nil, nil, err
	}
	res, err := e.Wait(ctx, id)
	if err != nil {
		_ = e.Cancel(id)
		return nil, nil, err
	}
	e.Forget(id)
	if res.Err != nil {
		return nil, res.Partitions, res.Err
	}
	return res.Proofs, res.Partitions, nil
}
