package service

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/r1cs"
)

func loadedService(t *testing.T) (*Service, []*r1cs.Witness) {
	dir, _, ws := fixture(t)
	s := New(nil, config.CUDASearch{})
	t.Cleanup(s.Close)
	require.NoError(t, s.RegisterCircuit("c", filepath.Join(dir, "c.r1cs")))
	require.NoError(t, s.LoadParams("c", filepath.Join(dir, "c.params"), false))
	return s, ws
}

// awaitOwn awaits job and checks that its proof is that of witness w:
// it verifies against w's public inputs and not against other's.
func awaitOwn(t *testing.T, s *Service, job uint64, w, other *r1cs.Witness) {
	t.Helper()
	res, err := s.Await(job, 10*time.Second)
	require.NoError(t, err)
	require.NoError(t, s.Verify("c", res.Proofs, [][]fr.Element{w.Inputs[1:]}))
	require.Equal(t, InvalidProof, CodeOf(s.Verify("c", res.Proofs, [][]fr.Element{other.Inputs[1:]})))
}

// submitAndEnd submits a one-partition job of w and waits until the engine
// is idle, without awaiting the job.
func submitAndEnd(t *testing.T, s *Service, w *r1cs.Witness, reqID string) uint64 {
	t.Helper()
	job, err := s.Submit(Request{CircuitID: "c", Witnesses: []*r1cs.Witness{w}, RequestID: reqID})
	require.NoError(t, err)
	eng, err := s.engine()
	require.NoError(t, err)
	require.Eventually(t, func() bool { return eng.InFlight() == 0 }, 10*time.Second, time.Millisecond)
	return job
}

// A job handle across cuzk_config: submit A, let it end without awaiting it, reconfigure
// (accepted: nothing in flight), submit B, await A: A's proofs, never B's
// (the new engine numbers its jobs afresh).
func TestHandleSurvivesReconfiguration(t *testing.T) {
	s, ws := loadedService(t)
	a := submitAndEnd(t, s, ws[0], "")
	require.NoError(t, s.Configure(""))
	b := submitAndEnd(t, s, ws[1], "")
	require.NotEqual(t, a, b)
	awaitOwn(t, s, a, ws[0], ws[1])
	awaitOwn(t, s, b, ws[1], ws[0])
	_, err := s.Await(a, 0)
	require.Equal(t, NotFound, CodeOf(err), "an awaited handle is gone")

	// Twice over, with B still unawaited when the engine is replaced again.
	a = submitAndEnd(t, s, ws[0], "")
	require.NoError(t, s.Configure(""))
	b = submitAndEnd(t, s, ws[1], "")
	require.NoError(t, s.Configure("[synthesis]\nmax_parallel = 1\n"))
	c := submitAndEnd(t, s, ws[0], "")
	awaitOwn(t, s, b, ws[1], ws[0])
	awaitOwn(t, s, c, ws[0], ws[1])
	awaitOwn(t, s, a, ws[0], ws[1])
	require.NoError(t, s.Cancel(submitAndEnd(t, s, ws[1], "")), "cancelling an ended job is fine")
}

// A request id reused once its job has ended names the new job; the old
// handle still names its own.
func TestReusedRequestID(t *testing.T) {
	s, ws := loadedService(t)
	a := submitAndEnd(t, s, ws[0], "x")
	b := submitAndEnd(t, s, ws[1], "x")
	awaitOwn(t, s, a, ws[0], ws[1])
	awaitOwn(t, s, b, ws[1], ws[0])

	// A request id in flight is refused.
	s.Throttle().SetHost(true) // holds the job in synthesis
	held, err := s.Submit(Request{CircuitID: "c", Witnesses: ws[:1], RequestID: "y"})
	require.NoError(t, err)
	_, err = s.Submit(Request{CircuitID: "c", Witnesses: ws[1:2], RequestID: "y"})
	require.Equal(t, Busy, CodeOf(err), "%v", err)
	s.Throttle().SetHost(false)
	awaitOwn(t, s, held, ws[0], ws[1])
}

// Handles whose jobs were never awaited and that the engine dropped are
// forgotten as the table grows, and answer NOT_FOUND.
func TestHandleTablePrunes(t *testing.T) {
	s, ws := loadedService(t)
	first := submitAndEnd(t, s, ws[0], "")
	s.mu.Lock()
	s.jobs.pruneAt = 1
	s.eng.Forget(s.jobs.refs[first].id) // as the engine's bounds would
	s.mu.Unlock()
	second := submitAndEnd(t, s, ws[1], "")
	s.mu.Lock()
	_, kept := s.jobs.refs[first]
	s.mu.Unlock()
	require.False(t, kept, "pruned")
	_, err := s.Await(first, 0)
	require.Equal(t, NotFound, CodeOf(err))
	awaitOwn(t, s, second, ws[1], ws[0])
}
