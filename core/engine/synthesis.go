package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/internal/par"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/throttle"
)

// synthesize is a synthesis goroutine: it reserves a partition's working
// set, computes a, b, c into pooled off-heap buffers (or copies the host's),
// checks the constraints and queues the partition for a device. The send
// to the device queue blocks when it is full: backpressure. When the
// queue has room and the devices run the query MSMs first (sendEarly),
// the partition is queued before a, b, c are computed.
func (e *Engine) synthesize() {
	defer e.wg.Done()
	for {
		var t *task
		select {
		case t = <-e.synthQ:
		case <-e.closing:
			return
		}
		eval, err := e.synthesizeOne(t)
		if err != nil {
			e.finishTask(t, err)
			continue
		}
		q := e.place.queueFor(t)
		if eval != nil {
			if e.early && e.sendEarly(t, q, eval) {
				continue
			}
			if err := eval(); err != nil {
				e.finishTask(t, err)
				continue
			}
		}
		select {
		case q <- t:
		case <-t.job.ctx.Done():
			e.finishTask(t, context.Cause(t.job.ctx))
		case <-e.closing:
			e.finishTask(t, ErrClosed)
			return
		}
	}
}

// synthesizeOne takes t's working set and buffers and puts its aux in
// place; for a witness it returns eval, which computes and checks a, b, c
// (nil: a host assignment, taken whole).
func (e *Engine) synthesizeOne(t *task) (eval func() error, err error) {
	j := t.job
	ctx := j.ctx
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	bytes := e.partitionBytes(&j.req, t.idx)
	asked := e.clock.Now()
	if err := e.adm.reserve(ctx, bytes); err != nil {
		if c := context.Cause(ctx); c != nil {
			return nil, c
		}
		return nil, err
	}
	if waited := e.clock.Now().Sub(asked); waited > time.Millisecond {
		st := e.adm.stats()
		e.log.Debug("engine: partition admitted after a wait", "job", j.id, "partition", t.idx, "waited", waited, "bytes", bytes,
			"reserved_bytes", st.Reserved, "budget_bytes", st.Budget, "host_available_bytes", st.HostAvailable)
	}
	t.bytes = bytes
	defer e.adm.backed(bytes) // its buffers are taken by the end
	t.tl.SynthStart = e.clock.Now()

	asg := &groth16.Assignment{}
	t.asg = asg // finishTask returns whatever buffers are set
	for _, dst := range []*[]fr.Element{&asg.A, &asg.B, &asg.C} {
		buf, err := e.pool.get(t.n)
		if err != nil {
			return nil, err
		}
		*dst = buf
	}
	p := j.req.Partitions[t.idx]
	if p.Assignment != nil {
		err := e.takeAssignment(t, p.Assignment)
		e.pool.trim()
		t.tl.SynthEnd = e.clock.Now()
		return nil, err
	}
	cs := j.req.Circuit.CS
	w := p.Witness
	if p.WitnessFunc != nil {
		var err error
		if w, err = p.WitnessFunc(); err != nil {
			return nil, fmt.Errorf("witness callback: %w", err)
		}
		if err := cs.CheckWitness(w); err != nil {
			return nil, fmt.Errorf("witness callback: %w", err)
		}
	}
	asg.Inputs, asg.Aux, asg.Density = w.Inputs, w.Aux, &cs.Density
	if err := e.pinAux(t); err != nil {
		return nil, err
	}
	return func() error {
		defer func() { t.tl.SynthEnd = e.clock.Now() }()
		defer e.pool.trim()
		// Without verification every row is checked as it is evaluated
		// (a wrong witness fails here, named by its first unsatisfied
		// constraint). With it, the check's product a row (~15% of the
		// mat-vec, which bounds the engine's pace at 2^24 on 16 cores)
		// is left to the failure: the witness of a proof that does not
		// verify is checked then (unsatisfied).
		opt := r1cs.EvalOptions{NbTasks: e.cfg.Synthesis.Threads, CheckRows: e.cfg.Throttle.CheckRows, Pause: pause(ctx, e.throttle), Check: !e.cfg.VerifyProofs}
		return witnessErr(cs.Eval(w, asg.A, asg.B, asg.C, opt))
	}, nil
}

// witnessErr names an unsatisfied witness as such.
func witnessErr(err error) error {
	if errors.Is(err, r1cs.ErrUnsatisfied) {
		return fmt.Errorf("witness does not satisfy the circuit: %w", err)
	}
	return err
}

// unsatisfied checks the witness of a proof that failed verification
// against its circuit, row by row, and returns the error naming its first
// unsatisfied constraint, or nil when it satisfies it (or was given as an
// assignment: a, b, c were the caller's).
func (e *Engine) unsatisfied(j *job, t *task) error {
	cs := j.req.Circuit.CS
	if cs == nil || j.req.Partitions[t.idx].Assignment != nil {
		return nil
	}
	return witnessErr(cs.IsSatisfied(&r1cs.Witness{Inputs: t.asg.Inputs, Aux: t.asg.Aux}))
}

// sendEarly queues t before its a, b, c are computed when q has room at
// once (a device is idle or will be soon), then computes them with eval on
// this goroutine, which the synthesis concurrency counts. The device
// runs the query MSMs, which need only aux, meanwhile, and waits for a, b,
// c (Assignment.Ready) before it uploads them: the first partition of a
// request no longer keeps an idle device waiting for its synthesis. It
// reports whether t was queued; if not, nothing was changed.
func (e *Engine) sendEarly(t *task, q chan *task, eval func() error) bool {
	done := t.abcLater()
	select {
	case q <- t:
	default:
		t.abcCopy, t.asg.Ready = nil, nil
		return false
	}
	done(eval())
	return true
}

// abcLater lets t go to its device before its a, b, c hold their values:
// finishTask waits for them before their buffers go (task.abcCopy), and
// the device stage's Assignment.Ready until done is called, then returns
// done's error.
func (t *task) abcLater() (done func(error)) {
	ch := make(chan struct{})
	var err error
	t.abcCopy = ch
	t.asg.Ready = func() error {
		<-ch
		return err
	}
	return func(e error) {
		err = e
		close(ch)
	}
}

// takeAssignment takes a host-synthesized assignment into the task: its
// inputs and aux first (aux copied into a page-locked buffer for a GPU),
// every value checked to be a reduced field element (an unreduced fr_t
// gives a wrong proof, never an error); then a, b, c are copied into the
// task's buffers and checked on a goroutine of their own, and the task
// goes to its device meanwhile: the device stage starts with the query
// MSMs, which need only aux, and waits for a, b, c (Assignment.Ready)
// before it uploads them. The copy (~55 ms for a 2^24 partition on 16
// cores, bound by memory bandwidth) then overlaps the device instead of
// preceding it. The copies and checks run in parallel chunks.
func (e *Engine) takeAssignment(t *task, src *groth16.Assignment) error {
	asg := t.asg
	tasks := e.cfg.Synthesis.Threads
	if i := groth16.FirstUnreduced(src.Inputs); i >= 0 {
		return fmt.Errorf("%w: input[%d] is not a reduced field element", ErrInvalidAssignment, i)
	}
	asg.Inputs, asg.Aux, asg.Density = src.Inputs, src.Aux, src.Density
	if e.pool.pinner != nil && len(asg.Aux) > 0 {
		buf, err := e.pool.get(len(asg.Aux))
		if err != nil {
			return err
		}
		asg.Aux, t.auxPooled = buf, true
		if i := copyReduced(buf, src.Aux, tasks); i >= 0 {
			return fmt.Errorf("%w: aux[%d] is not a reduced field element", ErrInvalidAssignment, i)
		}
	} else if i := firstUnreducedParallel(src.Aux, tasks); i >= 0 {
		return fmt.Errorf("%w: aux[%d] is not a reduced field element", ErrInvalidAssignment, i)
	}
	done := t.abcLater()
	go func() {
		for _, v := range []struct {
			name     string
			dst, src []fr.Element
		}{{"a", asg.A, src.A}, {"b", asg.B, src.B}, {"c", asg.C, src.C}} {
			if i := copyReduced(v.dst, v.src, tasks); i >= 0 {
				done(fmt.Errorf("%w: %s[%d] is not a reduced field element", ErrInvalidAssignment, v.name, i))
				return
			}
			clear(v.dst[len(v.src):])
		}
		// Checked whole: the host may free a, b, c now. On an error the
		// task lets them go in finishTask, after the job has failed, so
		// that a waiting start sees the failure.
		e.releaseABC(t)
		done(nil)
	}()
	return nil
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

// copyChunks is the number of goroutines for a copy or scan of n elements:
// up to tasks (0: GOMAXPROCS), each with at least 2^16 elements (2 MiB),
// below which a goroutine costs more than it saves.
func copyChunks(n, tasks int) int {
	if tasks <= 0 {
		tasks = runtime.GOMAXPROCS(0)
	}
	const minChunk = 1 << 16
	return max(1, min(tasks, n/minChunk))
}

// parallelCopy copies src into dst (dst at least as long) in parallel.
func parallelCopy(dst, src []fr.Element, tasks int) {
	par.Ranges(copyChunks(len(src), tasks), len(src), func(_, from, to int) { copy(dst[from:to], src[from:to]) })
}

// copyReduced copies src into dst (dst at least as long) in parallel and
// returns the index of the first element not below r, or −1. Each range
// is checked right after it is copied, while it is still in cache: one
// pass over the host's memory instead of two.
func copyReduced(dst, src []fr.Element, tasks int) int {
	return scanRanges(len(src), tasks, func(from, to int) int {
		const block = 1 << 12
		for i := from; i < to; i += block {
			end := min(i+block, to)
			copy(dst[i:end], src[i:end])
			if k := groth16.FirstUnreduced(dst[i:end]); k >= 0 {
				return i + k
			}
		}
		return -1
	})
}

// firstUnreducedParallel is groth16.FirstUnreduced spread over goroutines.
func firstUnreducedParallel(v []fr.Element, tasks int) int {
	return scanRanges(len(v), tasks, func(from, to int) int {
		if k := groth16.FirstUnreduced(v[from:to]); k >= 0 {
			return from + k
		}
		return -1
	})
}

// scanRanges runs fn over contiguous ranges of [0, n) in parallel and
// returns the smallest index any of them reported, or −1.
func scanRanges(n, tasks int, fn func(from, to int) int) int {
	chunks := copyChunks(n, tasks)
	found := make([]int, chunks)
	par.Ranges(chunks, n, func(c, from, to int) { found[c] = fn(from, to) })
	for _, i := range found {
		if i >= 0 {
			return i
		}
	}
	return -1
}

// pause is the mat-vec's check: it yields while the throttle is raised and
// stops a cancelled job.
func pause(ctx context.Context, th *throttle.Throttle) func() error {
	return func() error {
		th.Pause()
		return context.Cause(ctx)
	}
}

// runsQueriesFirst reports whether every plan runs the query MSMs before
// it reads a, b, c, waiting for them inside the region (groth16.Plan's
// Prefetch): a CPU plan would evaluate them and prove on the same cores.
func runsQueriesFirst(plans []*groth16.Plan) bool {
	for _, p := range plans {
		if !p.Prefetch {
			return false
		}
	}
	return len(plans) > 0
}
