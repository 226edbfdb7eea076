package groth16

import (
	"math/big"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"
)

// The comb equals gnark-crypto's BatchScalarMultiplication, element for
// element, on random scalars and the edge values (0, 1, r − 1, powers of
// two across the byte windows), in G1 and G2.
func TestCombMatchesGnark(t *testing.T) {
	var scalars []fr.Element
	var e fr.Element
	scalars = append(scalars, fr.Element{}, fr.One())
	e.SetOne()
	e.Neg(&e)
	scalars = append(scalars, e)
	for _, k := range []uint64{2, 255, 256, 1 << 63} {
		e.SetUint64(k)
		scalars = append(scalars, e)
	}
	for i := 0; i < 2500; i++ { // more than one task's chunk
		_, err := e.SetRandom()
		require.NoError(t, err)
		scalars = append(scalars, e)
	}
	_, _, g1, g2 := bls.Generators()
	var base1 bls.G1Affine
	base1.ScalarMultiplication(&g1, scalars[10].BigInt(new(big.Int)))
	want1 := bls.BatchScalarMultiplicationG1(&base1, scalars)
	got1 := newCombG1(&base1, len(scalars)).mul(scalars)
	require.Equal(t, len(want1), len(got1))
	for i := range want1 {
		require.True(t, want1[i].Equal(&got1[i]), "G1 scalar %d", i)
	}
	want2 := bls.BatchScalarMultiplicationG2(&g2, scalars[:600])
	got2 := newCombG2(&g2, 600).mul(scalars[:600])
	for i := range want2 {
		require.True(t, want2[i].Equal(&got2[i]), "G2 scalar %d", i)
	}
	require.Empty(t, newCombG1(&base1, 0).mul(nil))
}

// The 16-bit comb (used from 2^19 scalars) on the same edge values.
func TestComb16MatchesGnark(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 2^20-point tables")
	}
	scalars := make([]fr.Element, 1<<19)
	for i := range scalars {
		scalars[i].SetUint64(uint64(i) * 0x9e3779b97f4a7c15)
	}
	scalars[1].SetOne()
	scalars[2].Neg(&scalars[1])
	for i := 3; i < 200; i++ {
		_, err := scalars[i].SetRandom()
		require.NoError(t, err)
	}
	_, _, g1, _ := bls.Generators()
	got := newCombG1(&g1, len(scalars)).mul(scalars)
	want := bls.BatchScalarMultiplicationG1(&g1, scalars[:2000])
	for i := range want {
		require.True(t, want[i].Equal(&got[i]), "scalar %d", i)
	}
}
