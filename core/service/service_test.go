package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/engine"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
)

func fixture(t *testing.T) (string, *r1cs.R1CS, []*r1cs.Witness) {
	dir := t.TempDir()
	cs, ws := fixtureSystem(t)
	pk, err := groth16.Setup(cs, 4)
	require.NoError(t, err)
	require.NoError(t, pk.WriteFile(filepath.Join(dir, "c.params")))
	require.NoError(t, cs.WriteFile(filepath.Join(dir, "c.r1cs")))
	return dir, cs, ws
}

// fixtureSystem is fixture's circuit and its two witnesses (the same each
// time).
func fixtureSystem(t *testing.T) (*r1cs.R1CS, []*r1cs.Witness) {
	var ws []*r1cs.Witness
	var cs *r1cs.R1CS
	for seed := uint64(1); seed <= 2; seed++ {
		c, w, err := synthetic.Generate(synthetic.Spec{Constraints: 1 << 9, DenseFraction: 0.3, Seed: seed})
		require.NoError(t, err)
		cs, ws = c, append(ws, w)
	}
	return cs, ws
}

func TestServiceLifecycle(t *testing.T) {
	dir, cs, ws := fixture(t)
	s := New(nil, config.CUDASearch{})
	defer s.Close()
	require.NoError(t, s.RegisterCircuit("c", filepath.Join(dir, "c.r1cs")))
	require.NoError(t, s.LoadParams("c", filepath.Join(dir, "c.params"), false))

	res, err := s.Prove(Request{CircuitID: "c", Witnesses: ws})
	require.NoError(t, err)
	require.Len(t, res.Proofs, 2*192)
	public := [][]fr.Element{ws[0].Inputs[1:], ws[1].Inputs[1:]}
	require.NoError(t, s.Verify("c", res.Proofs, public))
	public[1] = ws[0].Inputs[1:]
	err = s.Verify("c", res.Proofs, public)
	require.Equal(t, InvalidProof, CodeOf(err))

	// Reconfiguring is refused while a job is in flight, allowed when idle.
	s.Throttle().SetHost(true) // holds the job in synthesis
	job, err := s.Submit(Request{CircuitID: "c", Witnesses: ws[:1]})
	require.NoError(t, err)
	err = s.Configure("")
	require.Equal(t, Busy, CodeOf(err), "%v", err)
	s.Throttle().SetHost(false)
	_, err = s.Await(job, 10*time.Second)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return s.Configure("[synthesis]\nmax_parallel = 1\n") == nil }, 5*time.Second, 10*time.Millisecond)
	require.Equal(t, BadConfig, CodeOf(s.Configure("[synthesis]\nmax_parallel = 0\n")))

	// Errors carry their codes.
	other, _ := synthetic.Random(rand.New(rand.NewPCG(1, 2)), synthetic.ShapeDense, 10)
	require.Equal(t, InvalidArgument, CodeOf(s.RegisterSystem("c", other)), "a system that does not fit the loaded parameters")
	require.Equal(t, NotFound, CodeOf(s.LoadParams("x", filepath.Join(dir, "missing.params"), false)))
	require.Equal(t, NotFound, CodeOf(s.EvictParams("x")))
	_, err = s.Prove(Request{CircuitID: "nope", Witnesses: ws})
	require.Equal(t, NotFound, CodeOf(err))
	_, err = s.Await(12345, 0)
	require.Equal(t, NotFound, CodeOf(err))
	require.Equal(t, Cancelled, CodeOf(engine.ErrCancelled))
	require.Equal(t, DeviceFailed, CodeOf(fmt.Errorf("partition 0: device cuda:0: %w", backend.ErrDeviceFailed)))
	require.Equal(t, OK, CodeOf(nil))
	require.Equal(t, InvalidArgument, CodeOf(errors.New("something the request got wrong")))
	_ = cs
}

func TestSRSCacheAndAssignments(t *testing.T) {
	dir, cs, ws := fixture(t)
	s := New(nil, config.CUDASearch{})
	defer s.Close()
	path := filepath.Join(dir, "c.params")
	a, err := s.OpenSRS(path, true)
	require.NoError(t, err)
	b, err := s.OpenSRS(path, true)
	require.NoError(t, err)
	require.Same(t, a, b, "cache=true shares one SRS per path")
	c, err := s.OpenSRS(path, false)
	require.NoError(t, err)
	require.NotSame(t, a, c)

	n := cs.DomainSize()
	w := ws[0]
	fa, fb, fc := make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n)
	require.NoError(t, cs.Eval(w, fa, fb, fc, r1cs.EvalOptions{}))
	rows := cs.Rows()
	asg := &groth16.Assignment{A: fa[:rows], B: fb[:rows], C: fc[:rows], Inputs: w.Inputs, Aux: w.Aux, Density: &cs.Density}
	r, sv := []fr.Element{fr.NewElement(3)}, []fr.Element{fr.NewElement(4)}
	proofs, err := s.ProveAssignments(a, []*groth16.Assignment{asg}, r, sv, nil, -1)
	require.NoError(t, err)
	require.NoError(t, groth16.Verify(&a.pk.VerifyingKey, &proofs[0], w.Inputs[1:]))
	enc, err := CompressProofs(proofs)
	require.NoError(t, err)
	require.Len(t, enc, 192)

	bad := *asg
	bad.Aux = append([]fr.Element(nil), w.Aux...)
	bad.Aux[0] = fr.Element{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
	_, err = s.ProveAssignments(a, []*groth16.Assignment{&bad}, r, sv, nil, -1)
	require.ErrorContains(t, err, "not a reduced field element")
	_, err = s.ProveAssignments(a, []*groth16.Assignment{asg}, r, nil, nil, -1)
	require.Equal(t, InvalidArgument, CodeOf(err))

	// The caller may overwrite r_s, s_s and a, b, c once start returns
	// (bellperson frees them): the proof must not change.
	ac, bc, cc := append([]fr.Element(nil), asg.A...), append([]fr.Element(nil), asg.B...), append([]fr.Element(nil), asg.C...)
	scratch := &groth16.Assignment{A: ac, B: bc, C: cc, Inputs: w.Inputs, Aux: w.Aux, Density: &cs.Density}
	r2, s2 := append([]fr.Element(nil), r...), append([]fr.Element(nil), sv...)
	p, err := s.StartAssignments(a, []*groth16.Assignment{scratch}, r2, s2, nil, -1)
	require.NoError(t, err)
	for _, v := range [][]fr.Element{r2, s2, ac, bc, cc} {
		for i := range v {
			v[i].SetUint64(99)
		}
	}
	async, err := p.Finalize()
	require.NoError(t, err)
	require.Equal(t, proofs, async, "start copies r, s, a, b, c")

	p, err = s.StartAssignments(a, []*groth16.Assignment{asg}, r, sv, nil, -1)
	require.NoError(t, err)
	p.Destroy()
	_, err = p.Finalize()
	require.Error(t, err, "a destroyed pending proof cannot be finalized")

	require.False(t, s.EvictSRS(a), "still referenced twice")
	require.False(t, s.DropSRS(a))
	require.True(t, s.DropSRS(b), "last reference dropped after eviction")
	require.True(t, s.DropSRS(c))
}

func TestElementCodecs(t *testing.T) {
	v := []fr.Element{fr.NewElement(1), fr.NewElement(123456789)}
	for _, canonical := range []bool{false, true} {
		buf := make([]byte, 64)
		EncodeElements(buf, v, canonical)
		back, err := DecodeElements("v", buf, canonical)
		require.NoError(t, err)
		require.Equal(t, v, back)
	}
	_, err := DecodeElements("v", make([]byte, 33), false)
	require.Error(t, err)
	over := make([]byte, 32)
	for i := range over {
		over[i] = 0xff
	}
	_, err = DecodeElements("v", over, false)
	require.ErrorContains(t, err, "v[0] is not below the field modulus")
	_, err = DecodeElements("v", over, true)
	require.Error(t, err)

	words := []uint64{0b1011}
	bm, err := Bitmap("x", words, 4, 3)
	require.NoError(t, err)
	require.Equal(t, 4, bm.Len)
	_, err = Bitmap("x", words, 4, 2)
	require.ErrorContains(t, err, "popcount")
	_, err = Bitmap("x", []uint64{0xff}, 3, 3) // bits past the end do not count
	require.NoError(t, err)
	_, err = Bitmap("x", nil, 65, 0)
	require.ErrorContains(t, err, "words for 65 bits")
}

// logging.level of each configuration the host gives sets the level of
// the host layer's handler (FollowLogLevel); before one, the handler keeps
// its own.
func TestLogLevelFollowsConfiguration(t *testing.T) {
	var buf bytes.Buffer
	level := new(slog.LevelVar)
	level.Set(slog.LevelWarn)
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: level}))
	s := New(log, config.CUDASearch{})
	defer s.Close()
	s.FollowLogLevel(level)
	require.False(t, log.Enabled(context.Background(), slog.LevelInfo), "unconfigured: the handler's own level")
	require.NoError(t, s.Configure("[logging]\nlevel = \"debug\"\n"))
	require.Equal(t, slog.LevelDebug, level.Level())
	log.Debug("now shown")
	require.Contains(t, buf.String(), "now shown")
	require.NoError(t, s.Configure("[logging]\nlevel = \"error\"\n"))
	log.Warn("now hidden")
	require.NotContains(t, buf.String(), "now hidden")
	require.NoError(t, s.Configure(""))
	require.Equal(t, slog.LevelInfo, level.Level(), "the default configuration's level")
}

// TestReadersSayWhatAFileIs: the library's readers, given a file of
// another kind, say what it is and what the call takes (the C ABI,
// Python and Rust get the message with BadFile); a file of no known kind
// by its first bytes.
func TestReadersSayWhatAFileIs(t *testing.T) {
	dir, cs, ws := fixture(t)
	wtns := filepath.Join(dir, "w.wtns")
	require.NoError(t, os.WriteFile(wtns, r1cs.EncodeCircomWitness(ws[0]), 0o644))
	random := filepath.Join(dir, "random.bin")
	require.NoError(t, os.WriteFile(random, bytes.Repeat([]byte{0xa5}, 300), 0o644))
	s := New(nil, config.CUDASearch{})
	defer s.Close()

	err := s.LoadParams("c", wtns, false)
	require.Equal(t, BadFile, CodeOf(err))
	require.Contains(t, err.Error(), "cuzk_load_params: "+wtns+" is a circom witness (.wtns) with "+fmt.Sprint(cs.NumVars())+" values")
	require.Contains(t, err.Error(), "cuzk_load_params takes a parameter file (bellperson .params)")

	_, err = s.OpenSRS(random, false)
	require.Equal(t, BadFile, CodeOf(err))
	require.Contains(t, err.Error(), "create_SRS: "+random+" is a file of no kind cuzk knows (300 bytes; first bytes a5 a5")

	err = s.RegisterCircuit("c", filepath.Join(dir, "c.params"))
	require.Equal(t, BadFile, CodeOf(err))
	require.Contains(t, err.Error(), "is a parameter file (bellperson .params)")
	require.Contains(t, err.Error(), "cuzk_register_circuit takes a circom circuit (.r1cs) or a cuzk circuit file")

	// a missing file stays NotFound, named
	err = s.LoadParams("c", filepath.Join(dir, "none.params"), false)
	require.Equal(t, NotFound, CodeOf(err))
	require.Contains(t, err.Error(), "none.params")
}
