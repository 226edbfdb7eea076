package service

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/engine"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/r1cs"
)

// dropInFixture opens the fixture's SRS and builds one host assignment.
func dropInFixture(t *testing.T, s *Service) (string, *SRS, *groth16.Assignment, []*r1cs.Witness) {
	dir, cs, ws := fixture(t)
	h, err := s.OpenSRS(filepath.Join(dir, "c.params"), false)
	require.NoError(t, err)
	n := cs.DomainSize()
	w := ws[0]
	fa, fb, fc := make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n)
	require.NoError(t, cs.Eval(w, fa, fb, fc, r1cs.EvalOptions{}))
	rows := cs.Rows()
	return dir, h, &groth16.Assignment{A: fa[:rows], B: fb[:rows], C: fc[:rows], Inputs: w.Inputs, Aux: w.Aux, Density: &cs.Density}, ws
}

func TestGPUIndexOnACPUOnlyHost(t *testing.T) {
	s := New(nil, config.CUDASearch{})
	defer s.Close()
	_, h, asg, ws := dropInFixture(t, s)
	r, sv := []fr.Element{fr.NewElement(3)}, []fr.Element{fr.NewElement(4)}
	for _, idx := range []int{0, 1, 7, 1000} {
		_, err := s.ProveAssignments(h, []*groth16.Assignment{asg}, r, sv, nil, idx)
		require.Equal(t, InvalidArgument, CodeOf(err), "gpu_index %d: %v", idx, err)
		require.ErrorIs(t, err, engine.ErrNoDevice)
		require.ErrorContains(t, err, "gpu_index")
		require.ErrorContains(t, err, "no GPU")
	}
	_, err := s.StartAssignments(h, []*groth16.Assignment{asg}, r, sv, nil, -2)
	require.Equal(t, InvalidArgument, CodeOf(err))
	require.ErrorContains(t, err, "gpu_index -2")
	proofs, err := s.ProveAssignments(h, []*groth16.Assignment{asg}, r, sv, nil, -1)
	require.NoError(t, err)
	require.NoError(t, groth16.Verify(&h.pk.VerifyingKey, &proofs[0], ws[0].Inputs[1:]))
}

// A drop-in call is an ordinary proof: queued at NORMAL, it goes before a
// LOW job submitted earlier.
func TestDropInJobsRunAtNormalPriority(t *testing.T) {
	s := New(nil, config.CUDASearch{})
	defer s.Close()
	require.NoError(t, s.Configure("[synthesis]\nmax_parallel = 1\nqueue_depth = 0\n[gpus]\ncpu_workers = 1\n"))
	dir, h, asg, ws := dropInFixture(t, s)
	require.NoError(t, s.RegisterCircuit("c", filepath.Join(dir, "c.r1cs")))
	require.NoError(t, s.LoadParams("c", filepath.Join(dir, "c.params"), false))
	eng, err := s.engine()
	require.NoError(t, err)

	// The blocker's first partition holds the synthesis goroutine, its
	// second the dispatcher: later jobs wait in the queue.
	gate := make(chan struct{})
	defer func() {
		select {
		case <-gate:
		default:
			close(gate)
		}
	}()
	blocker, err := s.Submit(Request{CircuitID: "c", Partitions: 2, Priority: engine.Low,
		WitnessFunc: func(int) (*r1cs.Witness, error) { <-gate; return ws[0], nil }})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		st := eng.Status()
		return len(st.Jobs) == 1 && st.Jobs[0].State == engine.StateRunning && st.Jobs[0].Partitions[1] == "running"
	}, 10*time.Second, time.Millisecond, "blocker dispatched")

	low, err := s.Submit(Request{CircuitID: "c", Witnesses: ws[:1], Priority: engine.Low})
	require.NoError(t, err)
	r, sv := []fr.Element{fr.NewElement(3)}, []fr.Element{fr.NewElement(4)}
	// start returns once the engine holds its own a, b, c: after the
	// blocker here, so it runs beside the test.
	started := make(chan *Pending, 1)
	go func() {
		p, err := s.StartAssignments(h, []*groth16.Assignment{asg}, r, sv, nil, -1)
		assert.NoError(t, err)
		started <- p
	}()
	require.Eventually(t, func() bool { return eng.Status().Capacity.Queue["normal"] == 1 }, 10*time.Second, time.Millisecond,
		"the drop-in job queued at NORMAL")
	require.Equal(t, 1, eng.Status().Capacity.Queue["low"])
	close(gate)

	p := <-started
	require.NotNil(t, p)
	_, dropIn, err := s.await(p.job, 0)
	require.NoError(t, err)
	res, err := s.Await(low, 0)
	require.NoError(t, err)
	var lowRep []engine.PartitionReport
	require.NoError(t, json.Unmarshal(res.Report, &lowRep))
	require.Less(t, dropIn[0].LockSeq, lowRep[0].LockSeq, "the drop-in job took the device first")
	_, err = s.Await(blocker, 0)
	require.NoError(t, err)
}
