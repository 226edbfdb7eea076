package engine

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/config"
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
	// A fixed budget is taken as it is.
	m.Budget = config.AutoSize(7 * config.GiB)
	b, err = resolveBudget(m, machine(1))
	require.NoError(t, err)
	require.EqualValues(t, 7<<30, b)
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
	require.Eventually(t, func() bool { return len(e.devQ) == cap(e.devQ) }, 10*time.Second, time.Millisecond,
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
