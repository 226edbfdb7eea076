package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/progress"
)

// StageVerify names the verification step in partition reports.
const StageVerify = "verify"

// work is a device worker: it runs each partition it takes through its
// device's plan (groth16.Plan.Run) with the device's interlock and the
// bandwidth throttle, then assembles and verifies the proof.
func (e *Engine) work(d *device, id int) {
	defer e.wg.Done()
	for {
		t := e.place.take(d)
		if t == nil {
			return
		}
		// A partition taken by a device out of service (pinned to it, or
		// with no device left in service) fails at once.
		var rep PartitionReport
		err := e.place.checkInService(t.job.req.Placement)
		if err == nil {
			rep, err = e.proveOne(d, id, t)
			if d.lock.markFailed(err) { // also when met outside the region
				if !errors.Is(err, errOutOfService) {
					e.log.Error("device out of service", "device", d.name, "index", d.index, "err", err)
				}
				err = fmt.Errorf("engine: device %s (index %d): %w", d.name, d.index, err)
			}
		}
		if err != nil {
			d.failed.Add(1)
		} else {
			d.proved.Add(1)
		}
		if err == nil {
			t.job.mu.Lock()
			t.job.reports[t.idx] = rep
			t.job.partDone[t.idx] = true
			t.job.nDone++
			done := t.job.nDone
			t.job.mu.Unlock()
			e.logPartition(t, &rep)
			t.job.req.Progress.Report(progress.Event{Stage: "prove", Done: int64(done), Total: int64(len(t.job.req.Partitions)), Unit: progress.Partitions})
		}
		e.finishTask(t, err)
	}
}

func (e *Engine) proveOne(d *device, worker int, t *task) (rep PartitionReport, err error) {
	// A panic outside the interlock (prep, G2, assembly) is an error too.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("engine: %w: %v\n%s", errPanic, r, debug.Stack())
		}
	}()
	j := t.job
	if err := context.Cause(j.ctx); err != nil {
		return rep, stopped{err}
	}
	pk := j.req.Circuit.PK
	part := j.req.Partitions[t.idx]
	if err := groth16.Validate(pk, t.asg); err != nil {
		return rep, err
	}
	r, s, err := groth16.Randomness(&groth16.Options{R: part.R, S: part.S})
	if err != nil {
		return rep, err
	}
	rep = PartitionReport{Device: d.name, DeviceIndex: d.index, Worker: worker}
	var stages groth16.Report
	if j.req.StageProgress != nil {
		stages.SetProgress(j.req.StageProgress)
	}
	msms, err := d.plan.Run(pk, t.asg, groth16.RunOptions{
		Lock:     e.regionLock(d, worker, t, &rep),
		Throttle: e.throttle,
		AfterRegion: func() error {
			if err := context.Cause(j.ctx); err != nil {
				return stopped{err}
			}
			// a, b, c are consumed: hand them to the dealloc goroutine now
			// rather than after a CPU G2 MSM.
			e.pool.put(t.asg.A, t.asg.B, t.asg.C)
			t.asg.A, t.asg.B, t.asg.C = nil, nil, nil
			return nil
		},
	}, &stages)
	t.tl.G2End = e.clock.Now()
	if err != nil {
		return rep, err
	}
	proof := groth16.Assemble(&pk.VerifyingKey, &r, &s, msms)
	if e.cfg.VerifyProofs {
		start := time.Now()
		if err := groth16.Verify(&pk.VerifyingKey, proof, t.asg.Inputs[1:]); err != nil {
			if werr := e.unsatisfied(j, t); werr != nil {
				return rep, werr
			}
			return rep, fmt.Errorf("%w: %w", ErrNotVerified, err)
		}
		stages.Stages = append(stages.Stages, groth16.Stage{Name: StageVerify, Duration: time.Since(start)})
		rep.Verified = true
	}
	t.tl.Assembled = e.clock.Now()
	rep.Timeline = t.tl
	rep.Stages = stages.Stages
	if stages.ABCReady != nil {
		ms := float64(stages.ABCReady.Microseconds()) / 1000
		rep.ABCReadyMs = &ms
	}
	e.metrics.partitionDone(j, d, &rep)
	j.mu.Lock()
	j.proofs[t.idx] = *proof
	j.mu.Unlock()
	return rep, nil
}

// regionLock is the lock a partition's device region runs in: the host's
// lock first (Request.Interlock), then the device's interlock — a worker
// waiting for the host's lock holds nothing another request needs — with
// the partition's timeline and a last check that its job still wants it.
func (e *Engine) regionLock(d *device, worker int, t *task, rep *PartitionReport) groth16.Lock {
	return lockFunc(func(region func() error) error {
		j := t.job
		t.tl.LockWait, t.tl.LockReleased = e.clock.Now(), time.Time{}
		l := j.req.Interlock
		if l != nil {
			l.Lock()
		}
		wait, err := d.lock.run(worker, func(seq int64) error {
			t.tl.LockAcquired = e.clock.Now()
			// released as the region ends, before the next holder may
			// take the lock: one device's regions never overlap
			defer func() { t.tl.LockReleased = e.clock.Now() }()
			rep.LockSeq = seq
			if err := context.Cause(j.ctx); err != nil {
				return stopped{err}
			}
			return region()
		})
		if l != nil {
			l.Unlock()
		}
		if t.tl.LockReleased.IsZero() { // the lock was not had
			t.tl.LockReleased = e.clock.Now()
		}
		e.metrics.lockWait.Observe(wait.Seconds())
		return err
	})
}

// lockFunc is a groth16.Lock.
type lockFunc func(region func() error) error

func (f lockFunc) Run(region func() error) error { return f(region) }
