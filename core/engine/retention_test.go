package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend"
)

// kept returns the retained job id, or nil.
func (e *Engine) kept(id string) *job { return e.finished.get(id) }

// The retention keeps the newest jobs within its count and bytes, counts
// them by the state they ended in, and forgets on request; a job over the
// bytes alone stays until the next one comes.
func TestRetentionKeepsTheNewest(t *testing.T) {
	r := newRetention(3, 100)
	ids := func() []string {
		var out []string
		r.mu.Lock()
		for el := r.order.Front(); el != nil; el = el.Next() {
			out = append(out, el.Value.(*retained).j.id)
		}
		r.mu.Unlock()
		return out
	}
	states := []JobState{StateDone, StateFailed, StateDone, StateCancelled, StateDone}
	for i, s := range states {
		r.add(&job{id: fmt.Sprint(i)}, s, 10)
	}
	require.Equal(t, []string{"2", "3", "4"}, ids(), "the oldest go past the count")
	require.Equal(t, map[string]int{"done": 2, "cancelled": 1}, r.counts())
	n, bytes := r.size()
	require.Equal(t, 3, n)
	require.EqualValues(t, 30, bytes)
	require.Nil(t, r.get("1"))
	require.Equal(t, "3", r.get("3").id)

	r.add(&job{id: "3"}, StateDone, 20) // the same id replaces its entry
	require.Equal(t, []string{"2", "4", "3"}, ids())
	require.Equal(t, map[string]int{"done": 3}, r.counts())
	r.forget("4")
	r.forget("unknown")
	require.Equal(t, []string{"2", "3"}, ids())

	r.add(&job{id: "big"}, StateFailed, 500) // alone over the bytes: kept, the others dropped
	require.Equal(t, []string{"big"}, ids())
	require.Equal(t, map[string]int{"failed": 1}, r.counts())
	r.add(&job{id: "next"}, StateDone, 1)
	require.Equal(t, []string{"next"}, ids())
	_, bytes = r.size()
	require.EqualValues(t, 1, bytes)
}

// requestDropped reports whether j holds nothing of its request.
func requestDropped(j *job) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.req.Partitions == nil && j.req.Circuit == nil && j.req.Interlock == nil
}

func TestRetentionBoundsByCount(t *testing.T) {
	f := testCircuit(t)
	e := newEngine(t, testConfig(), Options{Devices: []backend.Backend{&hookBackend{name: "fake0"}}, RetainJobs: 3})
	var ids []string
	for i := range 5 {
		id, err := e.Submit(f.request(fmt.Sprintf("j%d", i), 1, Normal))
		require.NoError(t, err)
		ids = append(ids, id)
		_, err = e.Await(id, 10*time.Second) // ends it; Await does not forget
		require.NoError(t, err)
	}
	for _, id := range ids[:2] {
		_, err := e.Await(id, 0)
		require.ErrorIs(t, err, ErrUnknownJob, "the oldest are dropped past the count")
	}
	for i, id := range ids[2:] {
		res, err := e.Await(id, 0)
		require.NoError(t, err)
		f.checkProofs(t, f.request("", 1, Normal), res)
		require.True(t, requestDropped(e.kept(id)), "job %d keeps only its result", i+2)
	}
	require.Equal(t, map[string]int{"done": 3}, e.Status().Finished)
	e.Forget(ids[4])
	require.False(t, e.Known(ids[4]))
	require.Equal(t, map[string]int{"done": 2}, e.Status().Finished)
}

func TestRetentionBoundsByBytes(t *testing.T) {
	f := testCircuit(t)
	one := resultSize(1, make([]PartitionReport, 1), nil)
	// Room for two one-partition results (their stages add a little).
	e := newEngine(t, testConfig(), Options{Devices: []backend.Backend{&hookBackend{name: "fake0"}}, RetainBytes: 2*one + 2*one/2})
	var ids []string
	for i := range 4 {
		res := f.proveChecked(t, e, f.request(fmt.Sprintf("b%d", i), 1, Normal))
		ids = append(ids, res.ID)
	}
	require.False(t, e.Known(ids[0]))
	require.False(t, e.Known(ids[1]))
	require.True(t, e.Known(ids[2]))
	require.True(t, e.Known(ids[3]))
	_, bytes := e.finished.size()
	require.LessOrEqual(t, bytes, e.finished.maxBytes)

	// A job alone over the bound is still kept until the next one ends.
	big := f.proveChecked(t, e, f.request("big", 4, Normal))
	require.True(t, e.Known(big.ID))
	require.False(t, e.Known(ids[3]))
}

// A cancelled job whose partition is still inside the device lets go of its
// request once that partition leaves, not before (it still reads it).
func TestCancelledJobReleasesItsRequestWhenSettled(t *testing.T) {
	f := testCircuit(t)
	be := &hookBackend{name: "fake0"}
	e := newEngine(t, oneWorker(testConfig()), Options{Devices: []backend.Backend{be}})
	gate := be.setGate(t)
	inH := make(chan struct{}, 4)
	be.onH = func() { inH <- struct{}{} }
	id, err := e.Submit(f.request("c", 2, Normal))
	require.NoError(t, err)
	<-inH // a partition is on the device, held by the gate
	settled, err := e.Settled(id)
	require.NoError(t, err)
	require.NoError(t, e.Cancel(id))
	res, err := e.Await(id, 5*time.Second)
	require.NoError(t, err)
	require.Equal(t, StateCancelled, res.State)
	require.False(t, requestDropped(e.kept(id)), "a partition still reads the request")
	gate()
	<-settled
	eventually(t, func() bool { return requestDropped(e.kept(id)) }, "request dropped once settled")

	// A failed job too.
	be.failH.Store(true)
	id, err = e.Submit(f.request("f", 1, Normal))
	require.NoError(t, err)
	res, err = e.Await(id, 5*time.Second)
	require.NoError(t, err)
	require.Equal(t, StateFailed, res.State)
	eventually(t, func() bool { return requestDropped(e.kept(id)) }, "failed job's request dropped")
}

// Prove collects its job: nothing is left behind for Await.
func TestProveForgetsItsJob(t *testing.T) {
	f := testCircuit(t)
	e := newEngine(t, testConfig(), Options{Devices: []backend.Backend{&hookBackend{name: "fake0"}}})
	_, _, err := e.Prove(t.Context(), f.request("p", 1, Normal))
	require.NoError(t, err)
	require.False(t, e.Known("p"))
	require.Empty(t, e.Status().Finished)
}
