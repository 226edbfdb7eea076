package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/internal/clock"
	"github.com/cuzk/cuzk/core/internal/wiretest"
	"github.com/cuzk/cuzk/core/msm"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/throttle"
)

func TestProveThroughEngine(t *testing.T) {
	f := testCircuit(t)
	e := newEngine(t, testConfig(), Options{})
	idle, err := e.StatusJSON()
	require.NoError(t, err)
	doc := wiretest.JSON(t, idle)
	require.Equal(t, []any{}, wiretest.Get(t, doc, "jobs"), "no jobs: [], not null")
	require.Equal(t, map[string]any{"low": 0.0, "normal": 0.0, "high": 0.0, "critical": 0.0},
		wiretest.Get(t, doc, "capacity", "queue"), "every priority listed")
	require.Equal(t, wiretest.Get(t, doc, "capacity", "memory_budget_bytes"), wiretest.Get(t, doc, "capacity", "memory_free_bytes"))

	req := f.request("", 4, Normal)
	res := f.proveChecked(t, e, req)
	require.Len(t, res.Partitions, 4)
	for _, p := range res.Partitions {
		require.True(t, p.Verified)
		tl := p.Timeline
		for _, pair := range [][2]time.Time{{tl.Queued, tl.SynthStart}, {tl.SynthStart, tl.SynthEnd}, {tl.SynthEnd, tl.LockWait},
			{tl.LockWait, tl.LockAcquired}, {tl.LockAcquired, tl.LockReleased}, {tl.LockReleased, tl.G2End}, {tl.G2End, tl.Assembled}} {
			require.False(t, pair[1].Before(pair[0]), "timeline in order")
		}
	}
	st := e.Status()
	require.Equal(t, "cpu", st.Devices[0].Kind)
	require.Equal(t, 1, st.Finished["done"])
	require.Zero(t, st.Memory.Reserved)
	js, err := e.StatusJSON()
	require.NoError(t, err)
	doc = wiretest.JSON(t, js)
	require.Equal(t, 1.0, wiretest.Get(t, doc, "finished", "done"))
	require.Positive(t, wiretest.Get(t, doc, "uptime_seconds"))
	require.Less(t, wiretest.Get(t, doc, "uptime_seconds"), 3600.0, "seconds, not nanoseconds")
	busy := wiretest.Get(t, doc, "devices", 0, "busy_seconds").(float64)
	require.InDelta(t, st.Devices[0].Busy.Seconds(), busy, 1e-9)
	// The partitions' reports (cuzk_result's report_json) follow the same rules.
	rep, err := json.Marshal(res.Partitions)
	require.NoError(t, err)
	reports := wiretest.JSON(t, rep)
	for i, p := range res.Partitions {
		for k, s := range p.Stages {
			require.Equal(t, s.Name, wiretest.Get(t, reports, i, "stages", k, "name"))
			require.InDelta(t, s.Duration.Seconds(), wiretest.Get(t, reports, i, "stages", k, "duration_seconds"), 1e-9)
			if s.MSM != (msm.Stats{}) {
				require.Equal(t, float64(s.MSM.Others), wiretest.Get(t, reports, i, "stages", k, "msm", "others"))
			}
		}
	}
	text, err := e.MetricsText()
	require.NoError(t, err)
	wiretest.Prometheus(t, text)
	require.Contains(t, text, `cuzk_jobs_completed_total{circuit="test"} 1`)
	require.Contains(t, text, `cuzk_stage_seconds_count{stage="msm h"} 4`)
}

// dispatched returns the number of job id's partitions taken by the
// dispatcher and not yet done.
func dispatched(e *Engine, id string) int {
	for _, j := range e.Status().Jobs {
		if j.ID == id {
			return strings.Count(strings.Join(j.Partitions, ","), "running")
		}
	}
	return -1
}

// waitDispatched waits until the job has dispatched all its partitions.
func waitDispatched(t *testing.T, e *Engine, id string) {
	eventually(t, func() bool {
		for _, j := range e.Status().Jobs {
			if j.ID == id {
				return j.State == StateRunning && !strings.Contains(strings.Join(j.Partitions, ","), "queued")
			}
		}
		return false
	}, "job "+id+" dispatched")
}

// lockOrder returns job ids in the order their partitions took the lock.
func lockOrder(t *testing.T, e *Engine, ids []string) []string {
	type ev struct {
		id  string
		seq int64
	}
	var evs []ev
	for _, id := range ids {
		res, err := e.Await(id, 30*time.Second)
		require.NoError(t, err)
		require.NoError(t, res.Err)
		for _, p := range res.Partitions {
			evs = append(evs, ev{id, p.LockSeq})
		}
	}
	for i := 1; i < len(evs); i++ {
		for k := i; k > 0 && evs[k].seq < evs[k-1].seq; k-- {
			evs[k], evs[k-1] = evs[k-1], evs[k]
		}
	}
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.id
	}
	return out
}

// blockPipeline fills a one-worker pipeline with blocker jobs so that
// later submissions wait in the queue: one in the device (held by the
// gate), one in synthesis waiting on the device queue, one held by the
// dispatcher.
func blockPipeline(t *testing.T, e *Engine, f fixture, be *hookBackend) (func(), []string) {
	gate := be.setGate(t)
	var ids []string
	for i := 0; i < 3; i++ {
		id, err := e.Submit(f.request(fmt.Sprintf("block%d", i), 1, Low))
		require.NoError(t, err)
		ids = append(ids, id)
		waitDispatched(t, e, id)
	}
	return gate, ids
}

func oneWorker(cfg config.Config) config.Config {
	cfg.Synthesis.MaxParallel = 1
	cfg.Synthesis.QueueDepth = 0
	cfg.GPUs.WorkersPerDevice = 1
	return cfg
}

func TestPriorityOrder(t *testing.T) {
	f := testCircuit(t)
	be := &hookBackend{name: "fake0"}
	e := newEngine(t, oneWorker(testConfig()), Options{Devices: []backend.Backend{be}})
	gate, blockers := blockPipeline(t, e, f, be)

	submit := []struct {
		id string
		p  Priority
	}{{"n1", Normal}, {"l1", Low}, {"c1", Critical}, {"h1", High}, {"n2", Normal}, {"c2", Critical}}
	ids := append([]string(nil), blockers...)
	for _, s := range submit {
		_, err := e.Submit(f.request(s.id, 1, s.p))
		require.NoError(t, err)
		ids = append(ids, s.id)
	}
	st := e.Status()
	require.Equal(t, map[string]int{"critical": 2, "high": 1, "normal": 2, "low": 1}, st.Capacity.Queue)
	gate()
	require.Equal(t, []string{"block0", "block1", "block2", "c1", "c2", "h1", "n1", "n2", "l1"}, lockOrder(t, e, ids))
}

func TestBatchingSameCircuit(t *testing.T) {
	f := testCircuit(t)
	other := &Circuit{ID: "other", CS: f.circuit.CS, PK: f.circuit.PK}
	be := &hookBackend{name: "fake0"}
	clk := clock.NewManual()
	cfg := oneWorker(testConfig())
	cfg.Scheduler.BatchMax = 3
	cfg.Scheduler.BatchWait = config.Duration(time.Hour)
	e := newEngine(t, cfg, Options{Devices: []backend.Backend{be}, Clock: clk})

	// "a" opens a batch; the dispatcher waits (on the manual clock) for
	// more jobs of its circuit.
	_, err := e.Submit(f.request("a", 1, Normal))
	require.NoError(t, err)
	eventually(t, func() bool { return clk.Pending() == 1 }, "dispatcher waits to fill the batch")
	reqB := f.request("b", 1, Critical)
	reqB.Circuit = other
	_, err = e.Submit(reqB)
	require.NoError(t, err)
	for _, id := range []string{"c", "d"} {
		_, err = e.Submit(f.request(id, 1, Low))
		require.NoError(t, err)
	}
	clk.Advance(time.Hour)
	// b's own batch waits for company too.
	eventually(t, func() bool { return clk.Pending() == 1 }, "second batch waits")
	clk.Advance(time.Hour)
	// The batch (a, c, d: same circuit) goes first, whatever b's priority.
	require.Equal(t, []string{"a", "c", "d", "b"}, lockOrder(t, e, []string{"a", "b", "c", "d"}))
}

func TestAdmissionBudget(t *testing.T) {
	f := testCircuit(t)
	n := len(f.circuit.PK.H) + 1
	ws := workingSet(n, f.circuit.CS.NumInputs, f.circuit.CS.NumAux)
	cfg := testConfig()
	cfg.Memory.Budget = config.AutoSize(ws + ws/2) // room for one partition at a time
	cfg.Synthesis.MaxParallel = 3
	e := newEngine(t, cfg, Options{})
	var ids []string
	var reqs []Request
	for i := 0; i < 3; i++ {
		req := f.request("", 3, Normal)
		id, err := e.Submit(req)
		require.NoError(t, err)
		ids, reqs = append(ids, id), append(reqs, req)
	}
	for i, id := range ids {
		res, err := e.Await(id, 0)
		require.NoError(t, err)
		f.checkProofs(t, reqs[i], res)
	}
	st := e.Status().Memory
	require.Equal(t, ws, st.Peak, "one partition at a time")
	require.LessOrEqual(t, st.Peak, st.Budget)

	// A request whose partition can never fit is refused at once.
	cfg.Memory.Budget = config.AutoSize(ws - 1)
	small := newEngine(t, cfg, Options{})
	_, err := small.Submit(f.request("", 1, Normal))
	require.ErrorIs(t, err, ErrTooLarge)
}

func TestBackpressure(t *testing.T) {
	f := testCircuit(t)
	be := &hookBackend{name: "fake0"}
	cfg := testConfig()
	cfg.Synthesis.MaxParallel = 1
	cfg.Synthesis.QueueDepth = 1
	cfg.GPUs.WorkersPerDevice = 1
	e := newEngine(t, cfg, Options{Devices: []backend.Backend{be}})
	gate := be.setGate(t)
	req := f.request("", 10, Normal)
	id, err := e.Submit(req)
	require.NoError(t, err)
	ws := workingSet(len(f.circuit.PK.H)+1, f.circuit.CS.NumInputs, f.circuit.CS.NumAux)
	// One partition in the device, one in the device queue, one in
	// synthesis waiting to send (each with its working set reserved), and
	// one held by the dispatcher, waiting for the synthesis goroutine: no
	// goroutine is left that could reserve more until the device moves.
	eventually(t, func() bool {
		return e.Status().Memory.Reserved == 3*ws && len(e.place.shared) == cap(e.place.shared) && dispatched(e, id) == 4
	}, "pipeline fills")
	require.Equal(t, 3*ws, e.Status().Memory.Reserved)
	require.Equal(t, 4, dispatched(e, id))
	gate()
	res, err := e.Await(id, 0)
	require.NoError(t, err)
	f.checkProofs(t, req, res)
}

func TestInterlockAndThrottle(t *testing.T) {
	f := testCircuit(t)
	th := throttle.New(true, 20*time.Microsecond, nil)
	be := &hookBackend{name: "fake0"}
	var g2Calls, g2Bad, hBad sync.Map
	be.onG2 = func() {
		g2Calls.Store(time.Now(), true)
		if !th.Raised() {
			g2Bad.Store(time.Now(), "throttle not raised during G2")
		}
	}
	// Each worker's device region must not overlap another's (maxG1 below);
	// with one worker, the lock must also be free during G2. The G2 MSM
	// runs on the CPU (be stands for it too).
	cfg := testConfig()
	cfg.GPUs.WorkersPerDevice = 2
	cfg.GPUs.G2OnGPU = false
	e := newEngine(t, cfg, Options{Devices: []backend.Backend{be}, CPU: be, Throttle: th})
	be.onH = func() {
		if e.devices[0].lock.holder.Load() < 0 {
			hBad.Store(time.Now(), "H outside the lock")
		}
	}
	var ids []string
	var reqs []Request
	for i := 0; i < 4; i++ {
		req := f.request("", 3, Normal)
		id, err := e.Submit(req)
		require.NoError(t, err)
		ids, reqs = append(ids, id), append(reqs, req)
	}
	for i, id := range ids {
		res, err := e.Await(id, 0)
		require.NoError(t, err)
		f.checkProofs(t, reqs[i], res)
	}
	require.EqualValues(t, 1, be.maxG1.Load(), "the device region never runs twice at once")
	require.EqualValues(t, 1, e.devices[0].lock.maxInside.Load())
	require.False(t, th.Raised(), "throttle lowered after the last G2")
	count := func(m *sync.Map) (n int) { m.Range(func(any, any) bool { n++; return true }); return }
	require.Equal(t, 12, count(&g2Calls))
	require.Zero(t, count(&g2Bad))
	require.Zero(t, count(&hBad))

	one := oneWorker(testConfig())
	one.GPUs.G2OnGPU = false
	be1 := &hookBackend{name: "fake1"}
	th1 := throttle.New(true, 20*time.Microsecond, nil)
	e1 := newEngine(t, one, Options{Devices: []backend.Backend{be1}, CPU: be1, Throttle: th1})
	var outside, raisedInG2, raisedInH []bool
	be1.onG2 = func() {
		outside = append(outside, e1.devices[0].lock.holder.Load() == -1)
		raisedInG2 = append(raisedInG2, th1.Raised())
	}
	be1.onH = func() { raisedInH = append(raisedInH, th1.Raised()) }
	req := f.request("", 2, Normal)
	_, _, err := e1.Prove(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, []bool{true, true}, outside, "G2 runs with the interlock released")
	require.Equal(t, []bool{true, true}, raisedInG2, "throttle raised while G2 runs")
	require.Equal(t, []bool{false, false}, raisedInH, "and only then")
	require.False(t, th1.Raised())
}

func TestMatVecYieldsWhileThrottled(t *testing.T) {
	f := testCircuit(t)
	cfg := testConfig()
	cfg.Throttle.CheckRows = 8
	e := newEngine(t, cfg, Options{})
	e.Throttle().SetHost(true)
	req := f.request("", 1, Normal)
	id, err := e.Submit(req)
	require.NoError(t, err)
	eventually(t, func() bool { return e.Throttle().Stats().Yields > 20 }, "mat-vec yields")
	_, done, err := e.Peek(id)
	require.NoError(t, err)
	require.False(t, done, "held while throttled")
	e.Throttle().SetHost(false)
	res, err := e.Await(id, 0)
	require.NoError(t, err)
	f.checkProofs(t, req, res)
	require.Positive(t, e.Status().Throttle.Throttled)
}

func TestDeallocSerialized(t *testing.T) {
	f := testCircuit(t)
	cfg := testConfig()
	cfg.Memory.PoolMax = 1 // room for no buffer: free every one
	cfg.Synthesis.MaxParallel = 3
	e := newEngine(t, cfg, Options{})
	var ids []string
	for i := 0; i < 4; i++ {
		id, err := e.Submit(f.request("", 3, Normal))
		require.NoError(t, err)
		ids = append(ids, id)
	}
	for _, id := range ids {
		res, err := e.Await(id, 0)
		require.NoError(t, err)
		require.NoError(t, res.Err)
	}
	e.pool.drain()
	st := e.pool.stats()
	require.EqualValues(t, 36, st.Frees)
	require.EqualValues(t, 1, st.MaxConcurrent, "frees never run concurrently")
	require.Zero(t, st.Mapped)

	// With room in the pool, buffers are reused instead.
	cfg.Memory.PoolMax = config.AutoSize(64 * config.MiB)
	e2 := newEngine(t, cfg, Options{})
	for i := 0; i < 3; i++ {
		_, _, err := e2.Prove(context.Background(), f.request("", 2, Normal))
		require.NoError(t, err)
		e2.pool.drain()
	}
	require.Positive(t, e2.pool.stats().Reuses)
}

func TestCancel(t *testing.T) {
	f := testCircuit(t)
	base := runtime.NumGoroutine()
	be := &hookBackend{name: "fake0"}
	e, err := New(oneWorker(testConfig()), Options{Devices: []backend.Backend{be}})
	require.NoError(t, err)
	gate := be.setGate(t)
	running, err := e.Submit(f.request("running", 2, Normal))
	require.NoError(t, err)
	waitDispatched(t, e, running)
	queued, err := e.Submit(f.request("queued", 3, Normal))
	require.NoError(t, err)

	require.NoError(t, e.Cancel(queued))
	res, err := e.Await(queued, 5*time.Second)
	require.NoError(t, err)
	require.Equal(t, StateCancelled, res.State)
	require.ErrorIs(t, res.Err, ErrCancelled)
	require.Nil(t, res.Proofs)

	require.NoError(t, e.Cancel(running))
	res, err = e.Await(running, 5*time.Second)
	require.NoError(t, err, "a cancelled job ends at once, even with a partition inside the device")
	require.Equal(t, StateCancelled, res.State)
	gate() // the partition in the device region finishes, then stops

	eventually(t, func() bool { return e.Status().Memory.Reserved == 0 }, "all memory released")
	e.pool.drain()
	require.Empty(t, e.Status().Jobs)
	require.ErrorIs(t, e.Cancel("nope"), ErrUnknownJob)
	require.NoError(t, e.Cancel(running), "cancelling a finished job is fine")

	// The engine still works after cancellations.
	_, _, err = e.Prove(context.Background(), f.request("", 1, Normal))
	require.NoError(t, err)
	e.Close()
	require.Zero(t, e.pool.stats().Mapped, "every buffer unmapped")
	// Polled here: testify's Eventually runs its condition in a goroutine.
	for end := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > base && time.Now().Before(end); {
		time.Sleep(time.Millisecond)
	}
	if runtime.NumGoroutine() > base {
		buf := make([]byte, 1<<20)
		t.Fatalf("goroutines left behind:\n%s", buf[:runtime.Stack(buf, true)])
	}
}

func TestDeadline(t *testing.T) {
	f := testCircuit(t)
	be := &hookBackend{name: "fake0"}
	clk := clock.NewManual()
	cfg := oneWorker(testConfig())
	cfg.Scheduler.DefaultTimeout = config.Duration(time.Hour)
	e := newEngine(t, cfg, Options{Devices: []backend.Backend{be}, Clock: clk})
	be.setGate(t)
	req := f.request("late", 1, Normal)
	req.Deadline = clk.Now().Add(30 * time.Millisecond)
	id, err := e.Submit(req)
	require.NoError(t, err)
	waitDispatched(t, e, id)
	clk.Advance(29 * time.Millisecond)
	_, done, err := e.Peek(id)
	require.NoError(t, err)
	require.False(t, done, "before its deadline the job runs")
	clk.Advance(time.Millisecond)
	res, err := e.Await(id, 5*time.Second)
	require.NoError(t, err)
	require.ErrorIs(t, res.Err, context.DeadlineExceeded)
	require.Equal(t, StateFailed, res.State)

	// Without a deadline of its own a job has scheduler.default_timeout,
	// also while it waits in the queue behind "late".
	queued, err := e.Submit(f.request("queued", 1, Normal))
	require.NoError(t, err)
	clk.Advance(time.Hour - time.Millisecond)
	_, done, err = e.Peek(queued)
	require.NoError(t, err)
	require.False(t, done)
	clk.Advance(time.Millisecond)
	res, err = e.Await(queued, 5*time.Second)
	require.NoError(t, err)
	require.ErrorIs(t, res.Err, context.DeadlineExceeded)
}

func TestBackendFailureFailsOnlyThatJob(t *testing.T) {
	f := testCircuit(t)
	be := &hookBackend{name: "fake0"}
	e := newEngine(t, oneWorker(testConfig()), Options{Devices: []backend.Backend{be}})

	be.failH.Store(true)
	_, _, err := e.Prove(context.Background(), f.request("", 3, Normal))
	require.ErrorIs(t, err, errInjected)
	require.Contains(t, err.Error(), "partition 0")

	be.panicH.Store(true)
	_, _, err = e.Prove(context.Background(), f.request("", 2, Normal))
	require.ErrorIs(t, err, errPanic)
	require.Contains(t, err.Error(), "injected panic")

	be.corrupt.Store(true)
	_, _, err = e.Prove(context.Background(), f.request("", 1, Normal))
	require.ErrorIs(t, err, ErrNotVerified, "a wrong proof is an error, never a result")

	st := e.Status()
	require.True(t, st.Devices[0].Healthy)
	require.EqualValues(t, -1, st.Devices[0].LockHolder)
	require.Zero(t, st.Memory.Reserved)
	req := f.request("", 2, Normal)
	proofs, _, err := e.Prove(context.Background(), req)
	require.NoError(t, err, "the device stays usable")
	require.Len(t, proofs, 2)
	text, err := e.MetricsText()
	require.NoError(t, err)
	require.Contains(t, text, `cuzk_jobs_failed_total{circuit="test",state="failed"} 3`)
}

func TestDeviceFailedError(t *testing.T) {
	l := newInterlock(clock.Real{})
	_, err := l.run(0, func(int64) error { return fmt.Errorf("cuda: %w", backend.ErrDeviceFailed) })
	require.ErrorIs(t, err, backend.ErrDeviceFailed)
	_, err = l.run(1, func(int64) error { return nil })
	require.ErrorIs(t, err, backend.ErrDeviceFailed, "a failed device takes no more work")
}

func TestRequestValidation(t *testing.T) {
	f := testCircuit(t)
	e := newEngine(t, testConfig(), Options{})
	_, err := e.Submit(Request{})
	require.ErrorContains(t, err, "without a circuit")
	_, err = e.Submit(Request{Circuit: f.circuit})
	require.ErrorContains(t, err, "without partitions")
	bad := f.request("", 1, Normal)
	bad.Partitions[0].Witness = nil
	_, err = e.Submit(bad)
	require.ErrorContains(t, err, "neither a witness nor an assignment")
	short := f.request("", 1, Normal)
	w := *f.witnesses[0]
	w.Aux = w.Aux[1:]
	short.Partitions[0].Witness = &w
	_, err = e.Submit(short)
	require.ErrorContains(t, err, "aux values")
	prio := f.request("", 1, Priority(9))
	_, err = e.Submit(prio)
	require.ErrorContains(t, err, "invalid priority")

	// Duplicate ids are refused while the first is in flight.
	be := &hookBackend{name: "fake0"}
	e2 := newEngine(t, oneWorker(testConfig()), Options{Devices: []backend.Backend{be}})
	g := be.setGate(t)
	_, err = e2.Submit(f.request("dup", 1, Normal))
	require.NoError(t, err)
	_, err = e2.Submit(f.request("dup", 1, Normal))
	require.ErrorIs(t, err, ErrDuplicateID)
	g()
	res, err := e2.Await("dup", 0)
	require.NoError(t, err)
	require.NoError(t, res.Err)
	_, err = e2.Submit(f.request("dup", 1, Normal))
	require.NoError(t, err, "an id may be reused once its job ended")
	_, err = e2.Await("dup", 0)
	require.NoError(t, err)

	// An unsatisfied witness fails its job with the constraint named,
	// whether proofs are verified (the rows are checked once the proof
	// fails: not a device's failure) or not (checked as they are
	// evaluated); the same constraint either way.
	_, _, err = e.Prove(context.Background(), f.unsatisfied())
	require.ErrorIs(t, err, r1cs.ErrUnsatisfied)
	require.NotErrorIs(t, err, ErrNotVerified)
	require.ErrorContains(t, err, "witness does not satisfy the circuit")
	cfg := testConfig()
	cfg.VerifyProofs = false
	noVerify := newEngine(t, cfg, Options{})
	_, _, err2 := noVerify.Prove(context.Background(), f.unsatisfied())
	require.ErrorIs(t, err2, r1cs.ErrUnsatisfied)
	require.Equal(t, err.Error(), err2.Error())
	want := f.circuit.CS.IsSatisfied(f.unsatisfied().Partitions[0].Witness)
	require.ErrorContains(t, err, want.Error())

	e.Close()
	_, err = e.Submit(f.request("", 1, Normal))
	require.ErrorIs(t, err, ErrClosed)
}

func TestManyJobsConcurrently(t *testing.T) {
	f := testCircuit(t)
	cfg := testConfig()
	cfg.GPUs.CPUWorkers = 2
	e := newEngine(t, cfg, Options{})
	jobs := 200
	if testing.Short() {
		jobs = 64
	}
	var wg sync.WaitGroup
	errs := make(chan error, jobs)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; i < jobs; i += 16 {
				req := f.request(fmt.Sprintf("g%d-%d", g, i), 1+i%2, Priority(i%4))
				id, err := e.Submit(req)
				if err != nil {
					errs <- err
					return
				}
				res, err := e.Await(id, time.Minute)
				if err == nil {
					err = res.Err
				}
				if err == nil && len(res.Proofs) != len(req.Partitions) {
					err = errors.New("missing proofs")
				}
				if err != nil {
					errs <- fmt.Errorf("%s: %w", id, err)
					return
				}
				func() {
					defer func() {
						if r := recover(); r != nil {
							errs <- fmt.Errorf("%v", r)
						}
					}()
					f.checkProofs(t, req, res)
				}()
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	require.Equal(t, jobs, e.Status().Finished["done"])
}

// countingLock is a sync.Locker that counts acquisitions.
type countingLock struct {
	sync.Mutex
	n int
}

func (l *countingLock) Lock() { l.Mutex.Lock(); l.n++ }

func TestAssignmentsWitnessFuncsAndHostLock(t *testing.T) {
	f := testCircuit(t)
	e := newEngine(t, testConfig(), Options{})
	cs := f.circuit.CS
	rows := cs.Rows()
	req := Request{Circuit: f.circuit, Interlock: &countingLock{}}
	// Partition 0: an assignment the "host" synthesized, a/b/c of Rows()
	// elements (not padded); partition 1: a witness callback.
	w := f.witnesses[0]
	a, b, c := make([]fr.Element, rows), make([]fr.Element, rows), make([]fr.Element, rows)
	full := cs.DomainSize()
	fa, fb, fc := make([]fr.Element, full), make([]fr.Element, full), make([]fr.Element, full)
	require.NoError(t, cs.Eval(w, fa, fb, fc, r1cs.EvalOptions{}))
	copy(a, fa)
	copy(b, fb)
	copy(c, fc)
	req.Partitions = append(req.Partitions,
		Partition{Assignment: &groth16.Assignment{A: a, B: b, C: c, Inputs: w.Inputs, Aux: w.Aux, Density: &cs.Density}},
		Partition{WitnessFunc: func() (*r1cs.Witness, error) { return f.witnesses[1], nil }})
	proofs, _, err := e.Prove(context.Background(), req)
	require.NoError(t, err)
	for i, wit := range []*r1cs.Witness{f.witnesses[0], f.witnesses[1]} {
		require.NoError(t, groth16.Verify(&f.circuit.PK.VerifyingKey, &proofs[i], wit.Inputs[1:]))
	}
	require.Equal(t, 2, req.Interlock.(*countingLock).n, "the host's lock is held for each device region")
	require.Equal(t, fa[:rows], a, "the host's a, b, c are not modified")

	bad := Request{Circuit: f.circuit, Partitions: []Partition{{WitnessFunc: func() (*r1cs.Witness, error) {
		return nil, errors.New("host could not build the witness")
	}}}}
	_, _, err = e.Prove(context.Background(), bad)
	require.ErrorContains(t, err, "witness callback: host could not build the witness")
	both := f.request("", 1, Normal)
	both.Partitions[0].WitnessFunc = func() (*r1cs.Witness, error) { return nil, nil }
	_, err = e.Submit(both)
	require.ErrorContains(t, err, "more than one")
}

func TestCUDAFallbackAndRequired(t *testing.T) {
	f := testCircuit(t)
	cfg := testConfig()
	cfg.GPUs.CUDALib = "/nonexistent/libcuzk_cuda.so"
	e := newEngine(t, cfg, Options{})
	st := e.Status()
	require.Equal(t, "cpu", st.Devices[0].Kind, "no CUDA library: the CPU backend, said in the log")
	_, _, err := e.Prove(context.Background(), f.request("", 1, Normal))
	require.NoError(t, err)

	cfg.GPUs.Required = true
	_, err = New(cfg, Options{})
	require.ErrorContains(t, err, "gpus.required is set but no GPU can be used")
	require.ErrorContains(t, err, "/nonexistent/libcuzk_cuda.so")

	// A library that is not cuzk's CUDA library is refused by name.
	cfg.GPUs.CUDALib = "libc.so.6"
	_, err = New(cfg, Options{})
	require.ErrorContains(t, err, "missing symbol cuzk_cuda_abi_version")
}

// deviceBackend is a GPU-like backend on the CPU: it computes h and the H
// MSM in one call (Capabilities.FusedH).
type deviceBackend struct {
	*hookBackend
	fused atomic.Int64
}

func (b *deviceBackend) Capabilities() backend.Capabilities {
	c := b.hookBackend.Capabilities()
	c.FusedH = b
	return c
}

func (b *deviceBackend) HMSM(points []bls.G1Affine, a, bb, c []fr.Element, _ backend.Prefetch) (bls.G1Jac, time.Duration, time.Duration, error) {
	b.fused.Add(1)
	start := time.Now()
	h, err := b.H(a, bb, c)
	if err != nil {
		return bls.G1Jac{}, 0, 0, err
	}
	mid := time.Now()
	res, _, err := b.MSMG1(points, h)
	return res, mid.Sub(start), time.Since(mid), err
}

func TestG2OnGPURunsInsideTheInterlock(t *testing.T) {
	f := testCircuit(t)
	th := throttle.New(true, 20*time.Microsecond, nil)
	be := &deviceBackend{hookBackend: &hookBackend{name: "gpu0"}}
	cfg := oneWorker(testConfig()) // gpus.g2_on_gpu: true
	e := newEngine(t, cfg, Options{Devices: []backend.Backend{be}, Throttle: th})
	var inside, raised []bool
	be.onG2 = func() {
		inside = append(inside, e.devices[0].lock.holder.Load() >= 0)
		raised = append(raised, th.Raised())
	}
	req := f.request("", 2, Normal)
	f.proveChecked(t, e, req)
	require.Equal(t, []bool{true, true}, inside, "a device G2 MSM runs inside the interlock")
	require.Equal(t, []bool{false, false}, raised, "and leaves the CPU throttle down")
	require.EqualValues(t, 2, be.fused.Load(), "h and the H MSM went through the fused call")
}

// pinBackend page-locks nothing but records what the pool asks for.
type pinBackend struct {
	*hookBackend
	mu     sync.Mutex
	pinned map[*fr.Element]bool
	pins   int
	unpins int
	// bytes is the bytes locked now, peak its high-water mark
	bytes, peak uint64
	fail        bool
	bad         []string
	// pinnedMSMs counts G1 MSMs over scalars in a pinned buffer, by length
	pinnedMSMs map[int]int
}

func (b *pinBackend) Capabilities() backend.Capabilities {
	c := b.hookBackend.Capabilities()
	c.Pin = b
	return c
}

// MSMG1 counts, by scalar count, the MSMs whose scalars lie in a pinned
// buffer (the L MSM over the pooled aux copy; the CPU backend's h, in a's).
func (b *pinBackend) MSMG1(points []bls.G1Affine, scalars []fr.Element) (bls.G1Jac, msm.Stats, error) {
	b.mu.Lock()
	if len(scalars) > 0 && b.pinned[&scalars[0]] {
		b.pinnedMSMs[len(scalars)]++
	}
	b.mu.Unlock()
	return b.hookBackend.MSMG1(points, scalars)
}

func (b *pinBackend) Pin(buf []fr.Element) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fail {
		return errInjected
	}
	if b.pinned[&buf[0]] {
		b.bad = append(b.bad, "pinned twice")
	}
	b.pinned[&buf[0]] = true
	b.pins++
	b.bytes += uint64(len(buf)) * 32
	b.peak = max(b.peak, b.bytes)
	return nil
}

func (b *pinBackend) Unpin(buf []fr.Element) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.pinned[&buf[0]] {
		b.bad = append(b.bad, "unpinned a buffer never pinned")
	}
	delete(b.pinned, &buf[0])
	b.unpins++
	b.bytes -= uint64(len(buf)) * 32
	return nil
}

func TestPooledBuffersArePinnedOnce(t *testing.T) {
	f := testCircuit(t)
	be := &pinBackend{hookBackend: &hookBackend{name: "gpu0"}, pinned: map[*fr.Element]bool{}, pinnedMSMs: map[int]int{}}
	e, err := New(testConfig(), Options{Devices: []backend.Backend{be}})
	require.NoError(t, err)
	for i := 0; i < 3; i++ {
		req := f.request("", 2, Normal)
		f.proveChecked(t, e, req)
	}
	e.pool.drain()
	st := e.Status().Memory.Pool
	numAux := f.circuit.CS.NumAux
	require.NotEqual(t, f.circuit.CS.DomainSize()-1, numAux, "L and H MSMs told apart by length")
	require.Equal(t, 6, be.pinnedMSMs[numAux], "each partition's L MSM ran over a pinned copy of its aux")
	require.Positive(t, st.Reuses, "buffers were recycled")
	require.EqualValues(t, st.Allocs, be.pins, "every new buffer pinned once, recycled ones not again")
	require.Equal(t, st.Pinned, len(be.pinned))
	require.Equal(t, be.bytes, st.PinnedBytes, "the bytes locked now")
	require.Equal(t, be.peak, st.PeakPinned, "the most locked at once")
	require.Positive(t, st.PinnedBytes)
	e.Close()
	require.Equal(t, be.pins, be.unpins, "every pinned buffer unpinned before it is unmapped")
	require.Empty(t, be.pinned)
	require.Empty(t, be.bad)

	// A device that cannot pin: proofs go on, the errors are counted.
	failing := &pinBackend{hookBackend: &hookBackend{name: "gpu1"}, pinned: map[*fr.Element]bool{}, pinnedMSMs: map[int]int{}, fail: true}
	e2 := newEngine(t, testConfig(), Options{Devices: []backend.Backend{failing}})
	req := f.request("", 2, Normal)
	f.proveChecked(t, e2, req)
	st = e2.Status().Memory.Pool
	require.Positive(t, st.PinErrors)
	require.Contains(t, st.PinError, errInjected.Error())
	require.Zero(t, st.Pinned)
	require.Zero(t, st.PeakPinned)
}
