package engine

import (
	"context"
	"fmt"
	"runtime"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/internal/par"
	"github.com/cuzk/cuzk/core/r1cs"
)

// synthesize is a synthesis goroutine: it reserves a partition's working
// set, computes a, b, c into pooled off-heap buffers (or copies the host's),
// checks the constraints and queues the partition for a device. The send
// to the device queue blocks when it is full: backpressure.
func (e *Engine) synthesize() {
	defer e.wg.Done()
	for {
		var t *task
		select {
		case t = <-e.synthQ:
		case <-e.closing:
			return
		}
		if err := e.synthesizeOne(t); err != nil {
			e.finishTask(t, err)
			continue
		}
		select {
		case e.devQ <- t:
		case <-t.job.ctx.Done():
			e.finishTask(t, context.Cause(t.job.ctx))
		case <-e.closing:
			e.finishTask(t, ErrClosed)
			return
		}
	}
}

func (e *Engine) synthesizeOne(t *task) error {
	j := t.job
	ctx := j.ctx
	if err := context.Cause(ctx); err != nil {
		return err
	}
	bytes := e.partitionBytes(&j.req, t.idx)
	if err := e.adm.reserve(ctx, bytes); err != nil {
		if c := context.Cause(ctx); c != nil {
			return c
		}
		return err
	}
	t.bytes = bytes
	t.tl.SynthStart = e.clock.Now()
	defer func() { t.tl.SynthEnd = e.clock.Now() }()

	asg := &groth16.Assignment{}
	t.asg = asg // finishTask returns whatever buffers are set
	for _, dst := range []*[]fr.Element{&asg.A, &asg.B, &asg.C} {
		buf, err := e.pool.get(t.n)
		if err != nil {
			return err
		}
		*dst = buf
	}
	p := j.req.Partitions[t.idx]
	if p.Assignment != nil {
		src := p.Assignment
		for _, v := range [][2][]fr.Element{{asg.A, src.A}, {asg.B, src.B}, {asg.C, src.C}} {
			copy(v[0], v[1])
			clear(v[0][len(v[1]):])
		}
		asg.Inputs, asg.Aux, asg.Density = src.Inputs, src.Aux, src.Density
		return e.pinAux(t)
	}
	cs := j.req.Circuit.CS
	w := p.Witness
	if p.WitnessFunc != nil {
		var err error
		if w, err = p.WitnessFunc(); err != nil {
			return fmt.Errorf("witness callback: %w", err)
		}
		if err := cs.CheckWitness(w); err != nil {
			return fmt.Errorf("witness callback: %w", err)
		}
	}
	opt := r1cs.EvalOptions{NbTasks: e.cfg.Synthesis.Threads, CheckRows: e.cfg.Throttle.CheckRows, Pause: pause(ctx, e.throttle)}
	if err := cs.Eval(w, asg.A, asg.B, asg.C, opt); err != nil {
		return err
	}
	if err := cs.CheckEvaluation(asg.A, asg.B, asg.C); err != nil {
		return fmt.Errorf("witness does not satisfy the circuit: %w", err)
	}
	asg.Inputs, asg.Aux, asg.Density = w.Inputs, w.Aux, &cs.Density
	return e.pinAux(t)
}

// pinAux copies the assignment's aux vector into a pooled buffer when the
// pool page-locks its buffers for a GPU: the device stage uploads aux first
// and alone, in front of the query MSMs, and a page-locked source is
// copied directly instead of through the staging buffers (512 MiB at 2^24:
// ~45 ms staged on the H200, ~20 ms page-locked). The copy runs here, on
// the synthesis goroutines' time; the caller's witness is left untouched.
func (e *Engine) pinAux(t *task) error {
	asg := t.asg
	if e.pool.pinner == nil || len(asg.Aux) == 0 {
		return nil
	}
	buf, err := e.pool.get(len(asg.Aux))
	if err != nil {
		return err
	}
	parallelCopy(buf, asg.Aux, e.cfg.Synthesis.Threads)
	asg.Aux = buf
	t.auxPooled = true
	return nil
}

// parallelCopy copies src into dst (same length) in up to tasks chunks
// (0: GOMAXPROCS) of at least 2^16 elements.
func parallelCopy(dst, src []fr.Element, tasks int) {
	if tasks <= 0 {
		tasks = runtime.GOMAXPROCS(0)
	}
	const minChunk = 1 << 16
	chunks := max(1, min(tasks, len(src)/minChunk))
	par.Ranges(chunks, len(src), func(_, from, to int) { copy(dst[from:to], src[from:to]) })
}
