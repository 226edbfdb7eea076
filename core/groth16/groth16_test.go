package groth16

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/ntt"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
)

func TestProveVerifyShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, shape := range synthetic.Shapes {
		for _, n := range []int{1, 5, 60} {
			cs, w := synthetic.Random(rng, shape, n)
			pk, err := Setup(cs, uint64(n))
			require.NoError(t, err)
			proof, rep, err := Prove(pk, cs, w, Options{})
			require.NoError(t, err, "%s/%d", shape, n)
			require.NotZero(t, rep.Total)
			require.NoError(t, Verify(&pk.VerifyingKey, proof, w.Inputs[1:]), "%s/%d", shape, n)

			// Round trip through the 192-byte encoding.
			enc := proof.Bytes()
			var back params.Proof
			require.NoError(t, back.SetBytes(enc[:]))
			require.NoError(t, Verify(&pk.VerifyingKey, &back, w.Inputs[1:]))

			// Tampered proofs.
			tampered := *proof
			tampered.A, tampered.C = proof.C, proof.A
			require.ErrorIs(t, Verify(&pk.VerifyingKey, &tampered, w.Inputs[1:]), ErrInvalidProof)
			tampered = *proof
			tampered.C.Add(&tampered.C, &pk.Alpha1)
			require.ErrorIs(t, Verify(&pk.VerifyingKey, &tampered, w.Inputs[1:]), ErrInvalidProof)

			// Wrong public inputs.
			if len(w.Inputs) > 1 {
				pub := append([]fr.Element(nil), w.Inputs[1:]...)
				one := fr.One()
				pub[0].Add(&pub[0], &one)
				require.ErrorIs(t, Verify(&pk.VerifyingKey, proof, pub), ErrInvalidProof)
			}
			require.Error(t, Verify(&pk.VerifyingKey, proof, append(w.Inputs[1:], fr.One())))
		}
	}
}

func TestUnsatisfiedWitnessRefused(t *testing.T) {
	cs, w, err := synthetic.Generate(synthetic.Spec{Constraints: 1 << 10, DenseFraction: 0.5, Seed: 1})
	require.NoError(t, err)
	pk, err := Setup(cs, 1)
	require.NoError(t, err)
	// Flip a bit variable: its boolean constraint still holds but the
	// packing constraint fails; the error names a constraint.
	w.Aux[len(w.Aux)-1].SetUint64(2)
	_, _, err = Prove(pk, cs, w, Options{})
	require.ErrorIs(t, err, r1cs.ErrUnsatisfied)
	require.Contains(t, err.Error(), "constraint ")
	require.ErrorIs(t, cs.IsSatisfied(w), r1cs.ErrUnsatisfied)

	// A witness of the wrong size and a wrong ONE are refused too.
	_, _, err = Prove(pk, cs, &r1cs.Witness{Inputs: w.Inputs, Aux: w.Aux[1:]}, Options{})
	require.ErrorContains(t, err, "aux values")
	bad := &r1cs.Witness{Inputs: append([]fr.Element(nil), w.Inputs...), Aux: w.Aux}
	bad.Inputs[0].SetUint64(2)
	_, _, err = Prove(pk, cs, bad, Options{})
	require.ErrorContains(t, err, "ONE")
}

func TestParamsMismatchRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	cs1, w1 := synthetic.Random(rng, synthetic.ShapeDense, 30)
	cs2, _ := synthetic.Random(rng, synthetic.ShapeBoolean, 30)
	pk2, err := Setup(cs2, 2)
	require.NoError(t, err)
	_, _, err = Prove(pk2, cs1, w1, Options{})
	require.ErrorContains(t, err, "parameters do not match the circuit")
}

// TestProofMatchesReference recomputes the proof for fixed r, s with naive
// per-point scalar multiplications and a quadratic-time h, and requires the
// prover's proof to be identical, bit for bit.
func TestProofMatchesReference(t *testing.T) {
	withReferenceProofs(t, rand.New(rand.NewPCG(3, 4)), func(c referenceCase) {
		proof, _, err := Prove(c.pk, c.cs, c.w, Options{R: &c.r, S: &c.s})
		require.NoError(t, err)
		require.Equal(t, c.want.Bytes(), proof.Bytes(), c.shape.String())
	})
}

// referenceCase is a random circuit of one shape with its setup, fixed r
// and s, and the proof referenceProof computes for them.
type referenceCase struct {
	shape synthetic.Shape
	cs    *r1cs.R1CS
	w     *r1cs.Witness
	pk    *params.ProvingKey
	r, s  fr.Element
	want  *params.Proof
}

// withReferenceProofs calls fn with a reference case for each of the
// dense, boolean and zero-row shapes.
func withReferenceProofs(t *testing.T, rng *rand.Rand, fn func(referenceCase)) {
	for _, shape := range []synthetic.Shape{synthetic.ShapeDense, synthetic.ShapeBoolean, synthetic.ShapeZeroRows} {
		c := referenceCase{shape: shape}
		c.cs, c.w = synthetic.Random(rng, shape, 20)
		var err error
		c.pk, err = Setup(c.cs, 9)
		require.NoError(t, err)
		c.r.SetUint64(rng.Uint64())
		c.s.SetUint64(rng.Uint64())
		c.want = referenceProof(t, c.pk, c.cs, c.w, &c.r, &c.s)
		fn(c)
	}
}

func naiveMSM(points []bls.G1Affine, scalars []fr.Element) bls.G1Jac {
	var acc bls.G1Jac
	for i := range points {
		var p bls.G1Jac
		p.FromAffine(&points[i])
		p.ScalarMultiplication(&p, scalars[i].BigInt(new(big.Int)))
		acc.AddAssign(&p)
	}
	return acc
}

func referenceProof(t *testing.T, pk *params.ProvingKey, cs *r1cs.R1CS, w *r1cs.Witness, r, s *fr.Element) *params.Proof {
	n := len(pk.H) + 1
	a, b, c := make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n)
	require.NoError(t, cs.Eval(w, a, b, c, r1cs.EvalOptions{}))
	h := naiveH(n, a, b, c)
	z := append(append([]fr.Element(nil), w.Inputs...), w.Aux...)
	var aS, bS []fr.Element
	aS = append(aS, w.Inputs...)
	for i, v := range w.Inputs {
		if cs.Density.BInput.Get(i) {
			bS = append(bS, v)
		}
	}
	for j, v := range w.Aux {
		if cs.Density.AAux.Get(j) {
			aS = append(aS, v)
		}
		if cs.Density.BAux.Get(j) {
			bS = append(bS, v)
		}
	}
	_ = z
	hJ, lJ := naiveMSM(pk.H, h), naiveMSM(pk.L, w.Aux)
	aJ, b1J := naiveMSM(pk.A, aS), naiveMSM(pk.BG1, bS)
	var b2J bls.G2Jac
	for i := range pk.BG2 {
		var p bls.G2Jac
		p.FromAffine(&pk.BG2[i])
		p.ScalarMultiplication(&p, bS[i].BigInt(new(big.Int)))
		b2J.AddAssign(&p)
	}
	return assemble(&pk.VerifyingKey, r, s, &hJ, &lJ, &aJ, &b1J, &b2J)
}

// naiveH computes h = (a·b − c)/(x^N − 1) with quadratic-time interpolation
// and schoolbook polynomial arithmetic, independent of the NTTs.
func naiveH(n int, a, b, c []fr.Element) []fr.Element {
	omega, _ := fr.Generator(uint64(n))
	interp := func(ev []fr.Element) []fr.Element {
		// coefficients_j = 1/N Σ_i ev_i ω^{-ij}
		var inv, nInv fr.Element
		inv.Inverse(&omega)
		nInv.SetUint64(uint64(n))
		nInv.Inverse(&nInv)
		out := make([]fr.Element, n)
		for j := 0; j < n; j++ {
			var wj, x fr.Element
			wj.Exp(inv, big.NewInt(int64(j)))
			x.SetOne()
			for i := 0; i < n; i++ {
				var t fr.Element
				t.Mul(&ev[i], &x)
				out[j].Add(&out[j], &t)
				x.Mul(&x, &wj)
			}
			out[j].Mul(&out[j], &nInv)
		}
		return out
	}
	pa, pb, pc := interp(a), interp(b), interp(c)
	prod := make([]fr.Element, 2*n)
	for i := range pa {
		for j := range pb {
			var t fr.Element
			t.Mul(&pa[i], &pb[j])
			prod[i+j].Add(&prod[i+j], &t)
		}
	}
	for i := range pc {
		prod[i].Sub(&prod[i], &pc[i])
	}
	// divide by x^N − 1: q_i = p_{i+N} + q_{i+N}
	q := make([]fr.Element, 2*n)
	for i := 2*n - 1; i >= n; i-- {
		q[i-n].Add(&prod[i], &q[i])
	}
	// remainder must be zero: p_i + q_i == 0 for i < N
	for i := 0; i < n; i++ {
		var rem fr.Element
		rem.Add(&prod[i], &q[i])
		if !rem.IsZero() {
			panic(errors.New("naiveH: a·b − c not divisible by Z"))
		}
	}
	return q[:n-1]
}

// TestRootOfUnity proves that fr.Generator, the root the FFT domain uses,
// is bellperson's ω: 7^((r−1)/2^32) squared down to order N.
func TestRootOfUnity(t *testing.T) {
	r := fr.Modulus()
	e := new(big.Int).Sub(r, big.NewInt(1))
	e.Rsh(e, 32)
	root := new(big.Int).Exp(big.NewInt(7), e, r)
	for k := 1; k <= 32; k++ {
		want := new(big.Int).Set(root)
		for i := k; i < 32; i++ {
			want.Mul(want, want).Mod(want, r)
		}
		got, err := fr.Generator(1 << k)
		require.NoError(t, err)
		require.Equal(t, want.String(), got.BigInt(new(big.Int)).String(), "k=%d", k)
		if k <= 16 { // the prover's domain uses the same root (larger ones are costly to build)
			require.Equal(t, got, ntt.Domain(1<<k).Generator, "k=%d", k)
		}
	}
	require.Equal(t, uint64(7), func() uint64 { g := ntt.Domain(4).FrMultiplicativeGen; return g.Uint64() }())
}
