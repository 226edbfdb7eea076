package engine

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/units"
)

// A 32 GiB PoRep partition (Filecoin's PoRep C2): domain 2^27, 328 inputs,
// ~130.2 M aux variables.
const (
	porepDomain = 1 << 27
	porepInputs = 328
	porepAux    = 130_278_869 - porepInputs
)

func TestAutoBudgetHoldsA2to27Partition(t *testing.T) {
	ws := workingSet(porepDomain, porepInputs, porepAux)
	require.Greater(t, ws, uint64(16*config.GiB), "the old fixed default refused it")

	m := config.Default().Memory
	require.True(t, m.Budget.Auto())
	machine := func(b uint64) func() (uint64, error) { return func() (uint64, error) { return b, nil } }
	// A 128 GiB host (the reference system's smallest) holds one.
	b, err := resolveBudget(m, machine(128<<30))
	require.NoError(t, err)
	require.EqualValues(t, (128-5)<<30, b)
	require.LessOrEqual(t, ws, b)
	// A 24 GiB machine cannot: refused at once rather than swapping.
	b, err = resolveBudget(m, machine(24<<30))
	require.NoError(t, err)
	require.Greater(t, ws, b)
	// A GPU that selects the scalars itself needs a, b, c and aux on the
	// host: (3·2^27 + aux) elements, 15.9 GiB; seven fit a 128 GiB host.
	dev := deviceWorkingSet(porepDomain, porepAux)
	require.EqualValues(t, uint64(3*porepDomain+porepAux)*32, dev)
	require.EqualValues(t, 17_053_815_200, dev)
	b, err = resolveBudget(m, machine(128<<30))
	require.NoError(t, err)
	require.EqualValues(t, 7, b/dev)
	// A fixed budget is taken as it is.
	m.Budget = config.AutoSize(7 * config.GiB)
	b, err = resolveBudget(m, machine(1))
	require.NoError(t, err)
	require.EqualValues(t, 7<<30, b)
}

// queriesBackend selects the query scalars "on the device" (a GPU's
// default plan), failing there: enough to see what admission reserves.
type queriesBackend struct{ hookBackend }

func (b *queriesBackend) Capabilities() backend.Capabilities {
	c := b.hookBackend.Capabilities()
	c.Queries = b
	return c
}

func (b *queriesBackend) QueryMSMs(*backend.QueryInput) (*backend.QueryOutput, error) {
	return nil, errInjected
}

// TestAdmissionReservesWhatThePlanMaps: an engine whose devices select
// the scalars and run B_G2 themselves reserves a, b, c and aux a
// partition; one with a device whose host gathers them reserves the
// larger estimate (a budget between the two refuses its partition).
func TestAdmissionReservesWhatThePlanMaps(t *testing.T) {
	f := testCircuit(t)
	n := len(f.circuit.PK.H) + 1
	cs := f.circuit.CS
	host, dev := workingSet(n, cs.NumInputs, cs.NumAux), deviceWorkingSet(n, cs.NumAux)
	require.Less(t, dev, host)
	cfg := testConfig()
	require.True(t, cfg.GPUs.DevicePrep && cfg.GPUs.G2OnGPU)
	cfg.Memory.Budget = config.AutoSize(dev + (host-dev)/2)

	plain := newEngine(t, cfg, Options{Devices: []backend.Backend{&hookBackend{name: "plain"}}})
	_, err := plain.Submit(f.request("", 1, Normal))
	require.ErrorIs(t, err, ErrTooLarge)

	e := newEngine(t, cfg, Options{Devices: []backend.Backend{&queriesBackend{hookBackend{name: "prep"}}}})
	id, err := e.Submit(f.request("", 1, Normal))
	require.NoError(t, err)
	res, err := e.Await(id, 0)
	require.NoError(t, err)
	require.ErrorIs(t, res.Err, errInjected, "the device's own query MSMs ran")
	require.Equal(t, dev, e.Status().Memory.Peak)

	// One plan that gathers on the host: the larger estimate for all.
	mixed := newEngine(t, cfg, Options{Devices: []backend.Backend{&queriesBackend{hookBackend{name: "prep"}}, &hookBackend{name: "plain"}}})
	_, err = mixed.Submit(f.request("", 1, Normal))
	require.ErrorIs(t, err, ErrTooLarge)
	cfg.GPUs.G2OnGPU = false // B_G2 on the CPU: its scalars gathered on the host
	g2 := newEngine(t, cfg, Options{Devices: []backend.Backend{&queriesBackend{hookBackend{name: "prep"}}}})
	_, err = g2.Submit(f.request("", 1, Normal))
	require.ErrorIs(t, err, ErrTooLarge)
}

func TestAutoBudgetErrors(t *testing.T) {
	m := config.Default().Memory
	_, err := resolveBudget(m, func() (uint64, error) { return 0, errors.New("no /proc") })
	require.ErrorContains(t, err, "set memory.budget to a size")
	_, err = resolveBudget(m, func() (uint64, error) { return 4 << 30, nil })
	require.ErrorContains(t, err, "lower memory.safety_margin")
}

// TestStatusReportsResolvedBudget: the status shows the bytes, not "auto".
func TestStatusReportsResolvedBudget(t *testing.T) {
	cfg := config.Default()
	cfg.Memory.SafetyMargin = 1 * config.GiB
	e, err := New(cfg, Options{MemoryTotal: func() (uint64, error) { return 64 << 30, nil }})
	require.NoError(t, err)
	defer e.Close()
	require.EqualValues(t, 63<<30, e.Status().Memory.Budget)
}

// TestPoolKeepsBuffersWithinTheBudget: with pool_max "auto", idle buffers
// are kept across jobs (no new allocations once warm) while they and the
// reservations fit in the budget, and trimmed when a reservation needs the
// room.
func TestPoolKeepsBuffersWithinTheBudget(t *testing.T) {
	p := newPool(1<<40, 1)
	defer p.close()
	room := uint64(3 * 4096 * elemSize)
	p.room = func() uint64 { return room }
	a, err := p.get(4096)
	require.NoError(t, err)
	b, err := p.get(4096)
	require.NoError(t, err)
	p.put(a, b)
	p.drain()
	require.EqualValues(t, 2*4096*elemSize, p.stats().Pooled, "both fit in the room")
	x, err := p.get(4096)
	require.NoError(t, err)
	require.EqualValues(t, 1, p.stats().Reuses)
	// A reservation takes the room: the pool is trimmed to what is left.
	room = 0
	p.trim()
	p.drain()
	require.Zero(t, p.stats().Pooled)
	require.EqualValues(t, 1, p.stats().Frees)
	// Given back past the room: freed, not pooled.
	p.put(x)
	p.drain()
	require.Zero(t, p.stats().Pooled)
	require.EqualValues(t, 2, p.stats().Frees)
	require.Zero(t, p.stats().Mapped)
}

// TestCloseEndsQueuedPartitions: partitions waiting in a device queue when
// the engine closes end too: their buffers are freed and a caller waiting
// for the job to let go of its memory (start, finalize) is released.
func TestCloseEndsQueuedPartitions(t *testing.T) {
	f := testCircuit(t)
	be := &hookBackend{name: "fake0"}
	cfg := oneWorker(testConfig())
	cfg.Synthesis.QueueDepth = 2
	e, err := New(cfg, Options{Devices: []backend.Backend{be}})
	require.NoError(t, err)
	open := be.setGate(t)
	id, err := e.Submit(f.request("", 6, Normal))
	require.NoError(t, err)
	settled, err := e.Settled(id)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(e.place.shared) == cap(e.place.shared) }, 10*time.Second, time.Millisecond,
		"partitions synthesized and queued behind the gated one")
	closed := make(chan struct{})
	go func() { e.Close(); close(closed) }()
	open()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return")
	}
	select {
	case <-settled:
	default:
		t.Fatal("the job's queued partitions still hold its memory after Close")
	}
	require.Zero(t, e.pool.stats().Mapped, "every buffer freed")
}

// The loaded parameters' host copies count against the budget: a
// partition is admitted in what they leave, refused when it can never
// fit beside them, and waits for a key's release when it fits only
// without it. A key is held once however often it is held.
func TestAdmissionCountsHeldParameters(t *testing.T) {
	const u = uint64(unsafe.Sizeof(bls.G1Affine{})) // a key of k G1 points holds k·u bytes
	pk := &params.ProvingKey{H: make([]bls.G1Affine, 60)}
	a := newAdmission(100 * u)
	a.holdKey(pk)
	a.holdKey(pk)
	require.EqualValues(t, 60*u, a.stats().Keys, "held once")
	require.False(t, a.fits(50*u))
	require.True(t, a.fits(40*u))
	require.EqualValues(t, 40*u, a.room())
	require.NoError(t, a.reserve(context.Background(), 30*u))
	err := a.reserve(context.Background(), 50*u)
	require.ErrorContains(t, err, "less the loaded parameters ("+units.Bytes(60*u)+")")
	got := make(chan error, 1)
	go func() { got <- a.reserve(context.Background(), 20*u) }() // 60 + 30 + 20 > 100: waits
	select {
	case err := <-got:
		t.Fatalf("admitted past the budget: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	a.unholdKey(pk)
	require.NoError(t, <-got)
	require.EqualValues(t, 50*u, a.room())
	a.unholdKey(pk) // held no more: nothing to give back
	require.EqualValues(t, 0, a.stats().Keys)
	require.EqualValues(t, 50*u, a.room())
}

// A partition waits while what the host could map now, less the margin,
// cannot hold what it would map beyond the idle pooled buffers; the first
// in flight never waits on it.
func TestAdmissionWaitsForTheHostsMemory(t *testing.T) {
	a := newAdmission(1000)
	a.poll = time.Millisecond
	var avail, idle atomic.Uint64
	a.avail = func() (uint64, error) { return avail.Load(), nil }
	a.idle = idle.Load
	a.margin = 10
	ctx := context.Background()

	require.NoError(t, a.reserve(ctx, 300), "nothing in flight: admitted with no memory free")
	// Until it has taken its buffers the partition counts as about to
	// map them: nothing else fits beside it.
	done := make(chan error, 1)
	avail.Store(590)
	go func() { done <- a.reserve(ctx, 300) }()
	requireWaiting(t, done, "admitted beside a partition still taking its buffers")
	a.backed(300) // it has mapped them (the reading does not show it: 590 still)
	require.NoError(t, <-done)
	a.backed(300)
	a.release(300)
	avail.Store(300)
	go func() { done <- a.reserve(ctx, 300) }()
	requireWaiting(t, done, "admitted with 300 bytes free and a margin of 10")
	require.Equal(t, 2, a.stats().MemoryWaits)
	idle.Store(20) // 280 to map, 290 with the margin: fits in 300
	require.NoError(t, <-done)
	require.EqualValues(t, 600, a.stats().Reserved)

	// A context that ends while waiting gives up.
	avail.Store(0)
	cctx, cancel := context.WithCancel(ctx)
	go func() { done <- a.reserve(cctx, 100) }()
	time.Sleep(10 * time.Millisecond)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	require.EqualValues(t, 600, a.stats().Reserved)
	require.Zero(t, a.hostRoom(), "nothing free: nothing to map ahead")
	avail.Store(100)
	require.EqualValues(t, 90, a.hostRoom(), "what is free less the margin, under the budget's 400")
}

// requireWaiting fails the test if a reservation ends within 50 ms.
func requireWaiting(t *testing.T, done <-chan error, msg string) {
	t.Helper()
	select {
	case err := <-done:
		t.Fatalf("%s: %v", msg, err)
	case <-time.After(50 * time.Millisecond):
	}
}

// A many-partition job on a host whose memory (a fake of 3.5 partitions'
// working sets, less what the pool has mapped) is below the budget: the
// partitions wait for it, never map beyond it less the margin, and every
// proof verifies.
func TestManyPartitionsWithinTheHostsMemory(t *testing.T) {
	f := testCircuit(t)
	n := len(f.circuit.PK.H) + 1
	ws := workingSet(n, f.circuit.CS.NumInputs, f.circuit.CS.NumAux)
	cfg := testConfig()
	cfg.Memory.Budget = config.AutoSize(64 * ws) // the budget alone admits every partition
	cfg.Memory.SafetyMargin = config.Size(ws / 2)
	cfg.Memory.PoolMax = config.AutoSize(0)
	cfg.Synthesis.MaxParallel = 8
	host := 7 * ws / 2
	var e *Engine
	e = newEngine(t, cfg, Options{MemoryAvailable: func() (uint64, error) {
		return host - min(host, uint64(e.pool.mapped.Load())), nil
	}})
	req := f.request("", 8, Normal)
	res := f.proveChecked(t, e, req)
	f.checkProofs(t, req, res)
	st := e.Status()
	require.LessOrEqual(t, uint64(st.Memory.Pool.PeakMapped), host-ws/2, "mapped beyond the host's memory less the margin")
	require.Positive(t, st.Memory.MemoryWaits, "some partition waited for the host's memory")
}

// Buffers mapped ahead stop at what the host could map, less the margin,
// buffer by buffer: memory the host takes meanwhile (its own copies of
// the partitions' a, b, c) is not mapped over.
func TestPrefillStopsAtTheHostsMemory(t *testing.T) {
	p := newPool(1<<40, 1)
	defer p.close()
	const n = 4096
	size := uint64(n * elemSize)
	var hostUsed atomic.Uint64
	host := 5 * size
	p.hostFree = func() uint64 {
		used := uint64(p.mapped.Load()) + hostUsed.Load()
		return host - min(host, used)
	}
	sizes := make([]int, 10)
	for i := range sizes {
		sizes[i] = n
	}
	require.EqualValues(t, 5*size, p.prefill(sizes, nil), "five fit")
	hostUsed.Store(3 * size) // the host's own buffers
	more := make([]int, 10)
	for i := range more {
		more[i] = 2 * n
	}
	require.Zero(t, p.prefill(more, nil), "nothing more is mapped over the host's memory")
	require.LessOrEqual(t, uint64(p.mapped.Load()), host)
}

// relieveHost's two steps free idle buffers largest first until their
// bytes reach what was asked, and return once they are unmapped.
func TestRelieveFreesIdleBuffersLargestFirst(t *testing.T) {
	p := newPool(1<<40, 1)
	defer p.close()
	relieve := func(short uint64) uint64 { return p.freeNow(p.takeIdle(short)) }
	const n = 4096
	size := uint64(n * elemSize)
	require.EqualValues(t, 8*size, p.prefill([]int{n, 2 * n, n, 4 * n}, nil))
	require.Zero(t, relieve(0), "nothing asked: nothing freed")
	require.EqualValues(t, 4*size, relieve(1), "the largest buffer")
	require.EqualValues(t, 4*size, p.mapped.Load(), "unmapped before relieve returns")
	require.EqualValues(t, 3*size, relieve(3*size-1), "then 2n and n")
	require.EqualValues(t, size, p.mapped.Load())
	require.EqualValues(t, size, relieve(8*size), "what is left")
	require.Zero(t, relieve(size), "an empty pool")
	st := p.stats()
	require.EqualValues(t, 4, st.HostFrees)
	require.EqualValues(t, 8*size, st.HostFreedBytes)
	require.Zero(t, st.Pooled)
	require.Zero(t, p.mapped.Load())
}

// Buffers mapped ahead are given back when the host's own memory grows
// after them (bellperson copying a call's assignments once create_SRS
// has returned: a 10-circuit call at 2^26 was killed for memory) until
// twice the margin is free, never while a partition admitted is taking
// its buffers; a 10-partition call then runs within what the host has
// left, and later partitions map what they need again.
func TestIdleBuffersGoBackWhenTheHostRunsShort(t *testing.T) {
	f := testCircuit(t)
	pk, cs := f.circuit.PK, f.circuit.CS
	n := len(pk.H) + 1
	per := uint64((3*n + cs.NumAux) * elemSize)  // a partition's buffers
	ws := workingSet(n, cs.NumInputs, cs.NumAux) // what admission reserves for one
	cfg := testConfig()
	cfg.Memory.Budget = config.AutoSize(100 * ws)
	cfg.Memory.SafetyMargin = config.Size(per)
	host := 18*ws + per
	var hostUsed atomic.Uint64
	var e *Engine
	avail := func() uint64 {
		used := uint64(e.pool.mapped.Load()) + hostUsed.Load()
		return host - min(host, used)
	}
	be := &pinBackend{hookBackend: &hookBackend{name: "gpu0"}, pinned: map[*fr.Element]bool{}, pinnedMSMs: map[int]int{}}
	e = newEngine(t, cfg, Options{Devices: []backend.Backend{be}, MemoryAvailable: func() (uint64, error) { return avail(), nil }})
	require.NoError(t, e.WarmKey(pk))
	// half of what is free less the margin: 9 partitions' buffers
	require.Equal(t, ws, e.workingSet(n, cs.NumInputs, cs.NumAux))
	eventually(t, func() bool { return e.Status().Memory.Pool.Pooled == 9*per }, "the pool is filled ahead")
	time.Sleep(4 * hostWatch)
	require.Zero(t, e.Status().Memory.Pool.HostFrees, "nothing given back with the margin free")

	e.adm.mu.Lock()
	e.adm.unbacked = 1 // a partition admitted, taking its buffers
	e.adm.mu.Unlock()
	hostUsed.Store(host - 9*per - per/2) // the host's copies: half the margin left
	time.Sleep(4 * hostWatch)
	require.Zero(t, e.Status().Memory.Pool.HostFrees, "given back while a partition takes its buffers")
	e.adm.backed(1)
	eventually(t, func() bool { return e.Status().Memory.Pool.HostFrees > 0 }, "buffers given back")
	require.GreaterOrEqual(t, avail(), 2*per, "twice the margin given back")
	st := e.Status().Memory.Pool
	require.EqualValues(t, 9*per-st.Pooled, st.HostFreedBytes)
	require.Less(t, st.HostFreedBytes, int64(2*per), "given back beyond twice the margin")

	// a 10-partition call beside the host's copies: its partitions reuse
	// and map within what the host has left, and every proof verifies
	e.pool.peakMapped.Store(e.pool.mapped.Load())
	f.proveChecked(t, e, f.request("", 10, Normal))
	require.LessOrEqual(t, uint64(e.Status().Memory.Pool.PeakMapped), host-hostUsed.Load(), "mapped beyond the host's memory")
	hostUsed.Store(0) // the copies freed: the next call's partitions map again
	f.proveChecked(t, e, f.request("", 3, Normal))
	e.Close()
	require.Equal(t, be.pins, be.unpins)
	require.Empty(t, be.bad)
}
