package r1cs_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
)

// naiveRow evaluates row k of m densely, as a reference for Eval.
func naiveRow(cs *r1cs.R1CS, m *r1cs.Matrix, k int, z []fr.Element) fr.Element {
	var acc fr.Element
	for j := m.RowPtr[k]; j < m.RowPtr[k+1]; j++ {
		var t fr.Element
		t.Mul(&cs.Coeffs[m.Val[j]], &z[m.Col[j]])
		acc.Add(&acc, &t)
	}
	return acc
}

// abc returns zeroed a, b, c buffers of cs's domain size.
func abc(cs *r1cs.R1CS) (a, b, c []fr.Element) {
	n := cs.DomainSize()
	return make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n)
}

func TestEvalMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, shape := range synthetic.Shapes {
		cs, w := synthetic.Random(rng, shape, 300)
		n := cs.DomainSize()
		a, b, c := abc(cs)
		for i := range a { // garbage that Eval must overwrite
			a[i].SetUint64(99)
			b[i].SetUint64(99)
			c[i].SetUint64(99)
		}
		var pauses atomic.Int64
		require.NoError(t, cs.Eval(w, a, b, c, r1cs.EvalOptions{NbTasks: 3, CheckRows: 16, Pause: func() error { pauses.Add(1); return nil }}))
		require.Equal(t, int64((n+15)/16), pauses.Load())
		z := append(append([]fr.Element(nil), w.Inputs...), w.Aux...)
		for k := 0; k < n; k++ {
			var wa, wb, wc fr.Element
			switch {
			case k < cs.NumConstraints:
				wa, wb, wc = naiveRow(cs, &cs.A, k, z), naiveRow(cs, &cs.B, k, z), naiveRow(cs, &cs.C, k, z)
			case k < cs.Rows():
				wa = w.Inputs[k-cs.NumConstraints]
			}
			require.True(t, a[k].Equal(&wa) && b[k].Equal(&wb) && c[k].Equal(&wc), "%s row %d", shape, k)
		}
		require.NoError(t, cs.CheckEvaluation(a, b, c))
		stopErr := errors.New("stop")
		var calls atomic.Int64
		err := cs.Eval(w, a, b, c, r1cs.EvalOptions{NbTasks: 2, CheckRows: 4, Pause: func() error {
			if calls.Add(1) > 3 {
				return stopErr
			}
			return nil
		}})
		require.ErrorIs(t, err, stopErr)
		require.Less(t, calls.Load(), int64(n/4), "evaluation stops soon after Pause fails")
		require.Error(t, cs.Eval(w, a[:cs.Rows()-1], b[:cs.Rows()-1], c[:cs.Rows()-1], r1cs.EvalOptions{}))
	}
}

// TestEvalCheckNamesFirstUnsatisfied corrupts witnesses so that several
// constraints fail, in blocks that different goroutines take, and checks
// that Eval's Check and CheckEvaluation both name the first failing
// constraint found by a serial dense evaluation (naiveRow).
func TestEvalCheckNamesFirstUnsatisfied(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, shape := range synthetic.Shapes {
		cs, w := synthetic.Random(rng, shape, 600)
		a, b, c := abc(cs)
		require.NoError(t, cs.Eval(w, a, b, c, r1cs.EvalOptions{NbTasks: 3, CheckRows: 8, Check: true}), "%s: a satisfying witness", shape)
		for trial := 0; trial < 8; trial++ {
			bad := &r1cs.Witness{Inputs: append([]fr.Element(nil), w.Inputs...), Aux: append([]fr.Element(nil), w.Aux...)}
			for range 1 + rng.IntN(4) { // any variable but ONE (input 0)
				if v := 1 + rng.IntN(len(bad.Inputs)+len(bad.Aux)-1); v < len(bad.Inputs) {
					bad.Inputs[v].SetUint64(rng.Uint64())
				} else {
					bad.Aux[v-len(bad.Inputs)].SetUint64(rng.Uint64())
				}
			}
			z := append(append([]fr.Element(nil), bad.Inputs...), bad.Aux...)
			want := -1
			for k := 0; k < cs.NumConstraints && want < 0; k++ {
				var p fr.Element
				ra, rb, rc := naiveRow(cs, &cs.A, k, z), naiveRow(cs, &cs.B, k, z), naiveRow(cs, &cs.C, k, z)
				if !p.Mul(&ra, &rb).Equal(&rc) {
					want = k
				}
			}
			err := cs.Eval(bad, a, b, c, r1cs.EvalOptions{NbTasks: 4, CheckRows: 4, Check: true})
			if want < 0 { // the corruption touched no constraint's product
				require.NoError(t, err)
				continue
			}
			require.ErrorIs(t, err, r1cs.ErrUnsatisfied, "%s trial %d", shape, trial)
			require.ErrorContains(t, err, fmt.Sprintf("constraint %d:", want), "%s trial %d", shape, trial)
			err = cs.IsSatisfied(bad) // without buffers, on every core: the first one, too
			require.ErrorIs(t, err, r1cs.ErrUnsatisfied)
			require.ErrorContains(t, err, fmt.Sprintf("constraint %d:", want), "%s trial %d", shape, trial)
			require.NoError(t, cs.Eval(bad, a, b, c, r1cs.EvalOptions{NbTasks: 2, CheckRows: 16}), "without Check, no check")
			err = cs.CheckEvaluation(a, b, c)
			require.ErrorIs(t, err, r1cs.ErrUnsatisfied)
			require.ErrorContains(t, err, fmt.Sprintf("constraint %d:", want))
		}
		require.Error(t, cs.CheckEvaluation(a[:cs.NumConstraints-1], b, c), "short buffers are an error, not a panic")
		// a stop asked for while the check runs (a cancelled job) wins over
		// the unsatisfied constraint it found
		bad := &r1cs.Witness{Inputs: w.Inputs, Aux: slices.Clone(w.Aux)}
		for i := range bad.Aux {
			bad.Aux[i].SetUint64(uint64(i) + 7)
		}
		if cs.IsSatisfied(bad) != nil {
			stop := errors.New("cancelled")
			var calls atomic.Int64
			err := cs.Eval(bad, a, b, c, r1cs.EvalOptions{NbTasks: 1, CheckRows: 4, Check: true, Pause: func() error {
				if calls.Add(1) > 1 {
					return stop
				}
				return nil
			}})
			require.ErrorIs(t, err, stop, "%s", shape)
		}
	}
}

func TestDensityAndMerging(t *testing.T) {
	b := r1cs.NewBuilder()
	one := fr.One()
	var two, minusOne fr.Element
	two.SetUint64(2)
	minusOne.Neg(&one)
	x := b.Input(two)
	u := b.Aux(one) // in A only
	v := b.Aux(one) // in B only
	z := b.Aux(one) // cancels out of A: coefficient 1 + (−1) = 0
	// (u + z − z)·(v + x + x) = 4·u·... : u=1, v=1, x=2 → 1·5 = 5
	var five fr.Element
	five.SetUint64(5)
	b.Enforce(r1cs.LC{{Var: u, Coeff: one}, {Var: z, Coeff: one}, {Var: z, Coeff: minusOne}},
		r1cs.LC{{Var: v, Coeff: one}, {Var: x, Coeff: one}, {Var: x, Coeff: one}},
		r1cs.LC{{Var: b.One(), Coeff: five}})
	cs, w := b.Build()
	require.NoError(t, cs.IsSatisfied(w))
	require.Equal(t, 1, cs.A.NNZ(), "z's terms cancel and are dropped")
	require.Equal(t, 2, cs.B.NNZ(), "x's duplicate terms are merged")
	require.Equal(t, []bool{true, false, false}, bits(cs.Density.AAux))
	require.Equal(t, []bool{false, true, false}, bits(cs.Density.BAux))
	require.Equal(t, []bool{false, true}, bits(cs.Density.BInput))
	require.Equal(t, 1, cs.Density.AAux.Count())
	// Bits are LSB first in u64 words.
	require.Equal(t, uint64(1), cs.Density.AAux.Words[0])

	// combinations already merged are kept as they are; a zero coefficient
	// or terms out of order still take the merging path
	b = r1cs.NewBuilder()
	x = b.Input(two)
	u, v = b.Aux(one), b.Aux(two)
	var zero fr.Element
	b.Enforce(r1cs.LC{{Var: v, Coeff: one}, {Var: x, Coeff: one}, {Var: u, Coeff: one}}, // unsorted: x, u, v
		r1cs.LC{{Var: b.One(), Coeff: one}, {Var: u, Coeff: zero}}, // u dropped
		r1cs.LC{{Var: x, Coeff: two}})                              // already merged: (2 + 1 + 2)·1 ≠ 4
	cs, w = b.Build()
	require.Error(t, cs.IsSatisfied(w))
	require.Equal(t, []uint32{1, 2, 3}, cs.A.Col, "columns in order: x (input 1), u, v")
	require.Equal(t, 1, cs.B.NNZ(), "the zero term is dropped")
	require.Equal(t, 1, cs.C.NNZ())
}

func bits(b r1cs.Bitmap) []bool {
	out := make([]bool, b.Len)
	for i := range out {
		out[i] = b.Get(i)
	}
	return out
}

func TestFormatRoundTripAndErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cs, _ := synthetic.Random(rng, synthetic.ShapeDense, 50)
	dir := t.TempDir()
	path := filepath.Join(dir, "c.r1cs")
	require.NoError(t, cs.WriteFile(path))
	back, err := r1cs.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, cs, back)

	good, err := os.ReadFile(path)
	require.NoError(t, err)
	mutate := func(f func([]byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	// withCRC fixes the checksum so that deeper validation is reached.
	withCRC := func(b []byte) []byte {
		fixed := append([]byte(nil), b...)
		binary.LittleEndian.PutUint32(fixed[len(fixed)-4:], r1cs.CRCOf(b[:len(b)-4]))
		return fixed
	}
	hdr := 16
	coeffs := 16 + 7*8
	rowptrA := coeffs + 32*len(cs.Coeffs)
	colA := rowptrA + 8*(cs.NumConstraints+1)
	cases := []struct {
		name, msg string
		data      []byte
	}{
		{"empty", "shorter than the header", nil},
		{"magic", "bad magic", mutate(func(b []byte) []byte { b[0] = 'X'; return b })},
		{"version", "version 7", mutate(func(b []byte) []byte { b[8] = 7; return b })},
		{"truncated", "truncated or corrupt", good[:len(good)-9]},
		{"checksum", "checksum mismatch", mutate(func(b []byte) []byte { b[len(b)-10] ^= 1; return b })},
		{"huge header", "beyond any real circuit", mutate(func(b []byte) []byte { b[hdr+7] = 0xff; return b })},
		{"noncanonical coeff", "coefficient 2 is not a canonical", withCRC(mutate(func(b []byte) []byte {
			copy(b[coeffs+64:coeffs+96], bytes.Repeat([]byte{0xff}, 32))
			return b
		}))},
		{"column out of range", "variable 4294967295 out of range", withCRC(mutate(func(b []byte) []byte {
			copy(b[colA:colA+4], []byte{0xff, 0xff, 0xff, 0xff})
			return b
		}))},
		{"row pointers", "row pointers", withCRC(mutate(func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[rowptrA+8:], 1<<30)
			return b
		}))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := r1cs.Decode(c.data)
			require.ErrorIs(t, err, r1cs.ErrFormat)
			require.ErrorContains(t, err, c.msg)
		})
	}
	require.NoError(t, os.WriteFile(path, good[:40], 0o644))
	_, err = r1cs.ReadFile(path)
	require.ErrorIs(t, err, r1cs.ErrFormat)
	_, err = r1cs.ReadFile(filepath.Join(dir, "missing"))
	require.ErrorIs(t, err, os.ErrNotExist)
}
