package engine

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend/cpu"
	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/msm"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
)

// fixture is a small circuit with parameters and witnesses.
type fixture struct {
	circuit   *Circuit
	witnesses []*r1cs.Witness
}

var (
	fixtureOnce sync.Once
	fix         fixture
)

// testCircuit returns a 2^8-row circuit, its parameters and 4 witnesses.
func testCircuit(t testing.TB) fixture {
	fixtureOnce.Do(func() {
		var cs *r1cs.R1CS
		for seed := uint64(1); seed <= 4; seed++ {
			c, w, err := synthetic.Generate(synthetic.Spec{Constraints: 1 << 8, DenseFraction: 0.5, Seed: seed})
			if err != nil {
				panic(err)
			}
			cs = c
			fix.witnesses = append(fix.witnesses, w)
		}
		pk, err := groth16.Setup(cs, 3)
		if err != nil {
			panic(err)
		}
		fix.circuit = &Circuit{ID: "test", CS: cs, PK: pk}
	})
	return fix
}

// request builds a request of n partitions.
func (f fixture) request(id string, n int, p Priority) Request {
	req := Request{ID: id, Circuit: f.circuit, Priority: p}
	for i := 0; i < n; i++ {
		req.Partitions = append(req.Partitions, Partition{Witness: f.witnesses[i%len(f.witnesses)]})
	}
	return req
}

// unsatisfied is a one-partition request whose witness fails a
// constraint (its last aux value changed).
func (f fixture) unsatisfied() Request {
	bw := *f.witnesses[0]
	bw.Aux = append(bw.Aux[:0:0], bw.Aux...)
	bw.Aux[len(bw.Aux)-1].SetUint64(5)
	req := f.request("", 1, Normal)
	req.Partitions[0].Witness = &bw
	return req
}

// proveChecked submits req to e, waits for it and checks its proofs.
func (f fixture) proveChecked(t testing.TB, e *Engine, req Request) Result {
	t.Helper()
	id, err := e.Submit(req)
	require.NoError(t, err)
	res, err := e.Await(id, 0)
	require.NoError(t, err)
	f.checkProofs(t, req, res)
	return res
}

// checkProofs verifies every proof of res independently of the engine.
func (f fixture) checkProofs(t testing.TB, req Request, res Result) {
	t.Helper()
	require.NoError(t, res.Err)
	require.Equal(t, StateDone, res.State)
	require.Len(t, res.Proofs, len(req.Partitions))
	for i := range res.Proofs {
		require.NoError(t, groth16.Verify(&f.circuit.PK.VerifyingKey, &res.Proofs[i], req.Partitions[i].Witness.Inputs[1:]), "partition %d", i)
	}
}

func testConfig() config.Config {
	cfg := config.Default()
	cfg.Memory.Budget = config.AutoSize(1 * config.GiB)
	cfg.Memory.PoolMax = config.AutoSize(64 * config.MiB)
	// the tests' buffers are small: a machine short of the default 5 GiB
	// margin must not see its idle buffers given back (relieveHost)
	cfg.Memory.SafetyMargin = config.Size(256 * config.MiB)
	cfg.Synthesis.MaxParallel = 2
	cfg.GPUs.WorkersPerDevice = 2
	cfg.Throttle.Sleep = config.Duration(20 * time.Microsecond)
	return cfg
}

func newEngine(t testing.TB, cfg config.Config, opt Options) *Engine {
	t.Helper()
	e, err := New(cfg, opt)
	require.NoError(t, err)
	t.Cleanup(e.Close)
	return e
}

// hookBackend is the CPU backend with hooks and instrumentation.
type hookBackend struct {
	cpu.Backend
	name string
	// gate, when set, holds every H call until it is closed.
	gate atomic.Pointer[chan struct{}]
	// failH / panicH / corrupt make the next H fail, panic, or the next
	// G1 MSM return a wrong point.
	failH, panicH, corrupt atomic.Bool
	// region counts calls inside H..MSMG1 (the device region) at once.
	inG1, maxG1 atomic.Int64
	g1Calls     atomic.Int64
	onG2        func()
	onH         func()
}

var errInjected = errors.New("injected backend failure")

func (b *hookBackend) Name() string { return b.name }

func (b *hookBackend) enter() func() {
	n := b.inG1.Add(1)
	for {
		m := b.maxG1.Load()
		if n <= m || b.maxG1.CompareAndSwap(m, n) {
			break
		}
	}
	time.Sleep(200 * time.Microsecond) // widen the window for overlap
	return func() { b.inG1.Add(-1) }
}

func (b *hookBackend) H(a, bb, c []fr.Element) ([]fr.Element, error) {
	defer b.enter()()
	if b.onH != nil {
		b.onH()
	}
	if g := b.gate.Load(); g != nil {
		<-*g
	}
	if b.failH.CompareAndSwap(true, false) {
		return nil, errInjected
	}
	if b.panicH.CompareAndSwap(true, false) {
		panic("injected panic")
	}
	return b.Backend.H(a, bb, c)
}

func (b *hookBackend) MSMG1(points []bls.G1Affine, scalars []fr.Element) (bls.G1Jac, msm.Stats, error) {
	defer b.enter()()
	b.g1Calls.Add(1)
	r, st, err := b.Backend.MSMG1(points, scalars)
	if b.corrupt.CompareAndSwap(true, false) {
		_, _, g1, _ := bls.Generators()
		r.AddMixed(&g1)
	}
	return r, st, err
}

func (b *hookBackend) MSMG2(points []bls.G2Affine, scalars []fr.Element, threads int) (bls.G2Jac, msm.Stats, error) {
	if b.onG2 != nil {
		b.onG2()
	}
	return b.Backend.MSMG2(points, scalars, threads)
}

// setGate makes H calls wait until the returned open function is called;
// the test's cleanup opens it too, before the engine closes.
func (b *hookBackend) setGate(t testing.TB) (open func()) {
	g := make(chan struct{})
	b.gate.Store(&g)
	var once sync.Once
	open = func() { once.Do(func() { b.gate.Store(nil); close(g) }) }
	t.Cleanup(open)
	return open
}

// eventually polls cond for up to 10 s.
func eventually(t testing.TB, cond func() bool, msg string) {
	t.Helper()
	require.Eventually(t, cond, 10*time.Second, time.Millisecond, msg)
}
