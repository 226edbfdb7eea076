package service

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
)

// hostAssignment evaluates w into freshly allocated a, b, c, as a host
// (bellperson) holds them.
func hostAssignment(t *testing.T, cs *r1cs.R1CS, w *r1cs.Witness) *groth16.Assignment {
	n := cs.DomainSize()
	fa, fb, fc := make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n)
	require.NoError(t, cs.Eval(w, fa, fb, fc, r1cs.EvalOptions{}))
	rows := cs.Rows()
	return &groth16.Assignment{A: fa[:rows], B: fb[:rows], C: fc[:rows], Inputs: w.Inputs, Aux: w.Aux, Density: &cs.Density}
}

// openFixture opens the fixture's parameters as an uncached SRS of a new
// service, both closed with the test.
func openFixture(t *testing.T) (*Service, *SRS, *r1cs.R1CS, []*r1cs.Witness) {
	dir, cs, ws := fixture(t)
	s := New(nil, config.CUDASearch{})
	t.Cleanup(s.Close)
	h, err := s.OpenSRS(filepath.Join(dir, "c.params"), false)
	require.NoError(t, err)
	t.Cleanup(func() { s.DropSRS(h) })
	return s, h, cs, ws
}

// scribble overwrites v, as a host reusing freed memory would.
func scribble(v []fr.Element, seed uint64) {
	for i := range v {
		v[i] = fr.Element{seed + uint64(i), 7, 11, 13}
	}
}

// TestStartOwnsItsInputs: bellperson's prove_start frees r_s, s_s and a,
// b, c as soon as start returns. The proofs must be those of the same r, s
// proved synchronously, whatever the freed memory holds afterwards.
func TestStartOwnsItsInputs(t *testing.T) {
	s, h, cs, ws := openFixture(t)

	r := []fr.Element{fr.NewElement(3), fr.NewElement(5)}
	sv := []fr.Element{fr.NewElement(4), fr.NewElement(6)}
	want, err := s.ProveAssignments(h, []*groth16.Assignment{hostAssignment(t, cs, ws[0]), hostAssignment(t, cs, ws[1])}, r, sv, nil, -1)
	require.NoError(t, err)

	for round := range 5 {
		asgs := []*groth16.Assignment{hostAssignment(t, cs, ws[0]), hostAssignment(t, cs, ws[1])}
		rr, ss := append([]fr.Element(nil), r...), append([]fr.Element(nil), sv...)
		p, err := s.StartAssignments(h, asgs, rr, ss, nil, -1)
		require.NoError(t, err)
		scribble(rr, 100)
		scribble(ss, 200)
		for k, a := range asgs {
			scribble(a.A, uint64(300+k))
			scribble(a.B, uint64(400+k))
			scribble(a.C, uint64(500+k))
		}
		got, err := p.Finalize()
		require.NoError(t, err)
		require.Equal(t, params.EncodeProofs(want), params.EncodeProofs(got), "round %d: the proofs of the r, s given at start", round)
		for k := range got {
			require.NoError(t, groth16.Verify(&h.pk.VerifyingKey, &got[k], ws[k].Inputs[1:]))
		}
	}
}

// TestStartWaitsForTheCopies: start returns only once the engine holds its
// own copies of a, b, c; with the pipeline stopped in front of synthesis,
// it waits.
func TestStartWaitsForTheCopies(t *testing.T) {
	dir, cs, ws := fixture(t)
	s := New(nil, config.CUDASearch{})
	defer s.Close()
	require.NoError(t, s.Configure("[synthesis]\nmax_parallel = 1\n"))
	h, err := s.OpenSRS(filepath.Join(dir, "c.params"), false)
	require.NoError(t, err)
	defer s.DropSRS(h)
	r, sv := []fr.Element{fr.NewElement(3)}, []fr.Element{fr.NewElement(4)}

	// Hold the only synthesis goroutine in a witness callback of another job.
	release := make(chan struct{})
	eng, err := s.engine()
	require.NoError(t, err)
	require.NoError(t, s.RegisterSystem("blocker", cs))
	require.NoError(t, s.LoadParams("blocker", filepath.Join(dir, "c.params"), true))
	entered := make(chan struct{})
	blocker, err := s.Submit(Request{CircuitID: "blocker", Partitions: 1, WitnessFunc: func(int) (*r1cs.Witness, error) {
		close(entered)
		<-release
		return ws[0], nil
	}})
	require.NoError(t, err)
	<-entered
	_ = eng

	var wg sync.WaitGroup
	started := make(chan *Pending, 1)
	wg.Go(func() {
		p, err := s.StartAssignments(h, []*groth16.Assignment{hostAssignment(t, cs, ws[1])}, r, sv, nil, -1)
		require.NoError(t, err)
		started <- p
	})
	select {
	case <-started:
		t.Fatal("start returned before its a, b, c were copied")
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	p := <-started
	wg.Wait()
	got, err := p.Finalize()
	require.NoError(t, err)
	require.NoError(t, groth16.Verify(&h.pk.VerifyingKey, &got[0], ws[1].Inputs[1:]))
	_, err = s.Await(blocker, 0)
	require.NoError(t, err)
}

// TestStartRefusesUnreducedValues: a value that is not a field element
// fails the call with its name and index, from start when it is found by
// then, and never yields a proof.
func TestStartRefusesUnreducedValues(t *testing.T) {
	s, h, cs, ws := openFixture(t)
	r, sv := []fr.Element{fr.NewElement(3)}, []fr.Element{fr.NewElement(4)}
	bad := fr.Element{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
	for _, c := range []struct {
		name string
		edit func(a *groth16.Assignment)
	}{
		{"a[5]", func(a *groth16.Assignment) { a.A[5] = bad }},
		{"b[0]", func(a *groth16.Assignment) { a.B[0] = bad }},
		{"c[7]", func(a *groth16.Assignment) { a.C[7] = bad }},
		{"input[1]", func(a *groth16.Assignment) { a.Inputs = append([]fr.Element(nil), a.Inputs...); a.Inputs[1] = bad }},
		{"aux[3]", func(a *groth16.Assignment) { a.Aux = append([]fr.Element(nil), a.Aux...); a.Aux[3] = bad }},
	} {
		a := hostAssignment(t, cs, ws[0])
		c.edit(a)
		_, err := s.StartAssignments(h, []*groth16.Assignment{a}, r, sv, nil, -1)
		require.ErrorContains(t, err, c.name+" is not a reduced field element")
		require.Equal(t, InvalidArgument, CodeOf(err))
		_, err = s.ProveAssignments(h, []*groth16.Assignment{a}, r, sv, nil, -1)
		require.ErrorContains(t, err, c.name+" is not a reduced field element")
	}
	_, err := s.StartAssignments(h, []*groth16.Assignment{hostAssignment(t, cs, ws[0])}, []fr.Element{bad}, sv, nil, -1)
	require.ErrorContains(t, err, "r or s is not a reduced field element")
}
