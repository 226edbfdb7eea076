package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/throttle"
)

// firstBackend selects the query scalars itself and prefetches (a GPU's
// default plan), computing on the CPU; onQueries runs as each partition's
// query MSMs begin.
type firstBackend struct {
	hookBackend
	onQueries func()
}

func (b *firstBackend) Capabilities() backend.Capabilities {
	c := b.hookBackend.Capabilities()
	c.Queries, c.Prefetch = b, b
	return c
}

// chosen is head (all of it, or where headBits is set) then aux where bits is.
func chosen(head []fr.Element, headBits *r1cs.Bitmap, aux []fr.Element, bits *r1cs.Bitmap) []fr.Element {
	out := make([]fr.Element, 0, len(head)+len(aux))
	for i, v := range head {
		if headBits == nil || headBits.Get(i) {
			out = append(out, v)
		}
	}
	for i, v := range aux {
		if bits.Get(i) {
			out = append(out, v)
		}
	}
	return out
}

func (b *firstBackend) QueryMSMs(q *backend.QueryInput) (*backend.QueryOutput, error) {
	if b.onQueries != nil {
		b.onQueries()
	}
	out := &backend.QueryOutput{}
	var err error
	if out.L, _, err = b.MSMG1(q.L, q.Aux); err != nil {
		return nil, err
	}
	if out.A, _, err = b.MSMG1(q.A, chosen(q.Inputs, nil, q.Aux, q.AAux)); err != nil {
		return nil, err
	}
	bs := chosen(q.Inputs, q.BInput, q.Aux, q.BAux)
	if out.B1, _, err = b.MSMG1(q.BG1, bs); err != nil {
		return nil, err
	}
	if q.BG2 != nil {
		out.B2, _, err = b.MSMG2(q.BG2, bs, 0)
	}
	return out, err
}

// Prefetch copies nothing: the query MSMs and h read the host's slices.
func (b *firstBackend) Prefetch([]fr.Element) backend.Prefetch { return nopPrefetch{} }

type nopPrefetch struct{}

func (nopPrefetch) BeginRegion(int)          {}
func (nopPrefetch) ABC(_, _, _ []fr.Element) {}
func (nopPrefetch) Release()                 {}

// TestWitnessQueuedBeforeItsABC: with an idle device that runs the query
// MSMs first, a witness's partition reaches the device before its a, b, c
// are computed (the synthesis is held at its first check by the raised
// throttle, and the query MSMs still begin); its proof verifies, a wrong
// witness queued that way fails with its constraint named and leaves the
// device in service.
func TestWitnessQueuedBeforeItsABC(t *testing.T) {
	f := testCircuit(t)
	th := throttle.New(true, 20*time.Microsecond, nil)
	be := &firstBackend{hookBackend: hookBackend{name: "gpu0"}}
	e := newEngine(t, testConfig(), Options{Devices: []backend.Backend{be}, Throttle: th})
	require.True(t, e.early, "a device that runs the query MSMs first")
	var once sync.Once
	began := make(chan bool, 1)
	be.onQueries = func() { once.Do(func() { began <- th.Raised() }) }

	th.SetHost(true) // the mat-vec waits at its first check
	req := f.request("", 1, Normal)
	id, err := e.Submit(req)
	require.NoError(t, err)
	select {
	case raised := <-began:
		require.True(t, raised, "the query MSMs began while a, b, c were not yet computed")
	case <-time.After(30 * time.Second):
		th.SetHost(false)
		t.Fatal("the query MSMs did not begin before a, b, c were computed")
	}
	th.SetHost(false)
	res, err := e.Await(id, 0)
	require.NoError(t, err)
	f.checkProofs(t, req, res)

	_, _, err = e.Prove(context.Background(), f.unsatisfied())
	require.ErrorContains(t, err, "witness does not satisfy the circuit")
	require.ErrorContains(t, err, "constraint not satisfied")
	f.proveChecked(t, e, f.request("", 3, Normal))
	require.NoError(t, e.devices[0].lock.failed(), "a wrong witness says nothing of the device")

	// A CPU plan evaluates a, b, c before the partition is queued.
	cpuOnly := newEngine(t, testConfig(), Options{Devices: []backend.Backend{&hookBackend{name: "plain"}}})
	require.False(t, cpuOnly.early)
}
