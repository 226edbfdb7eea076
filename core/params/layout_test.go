package params

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDecodeLayout: the counts a file declares are the lengths of the
// sections the full decoder returns; a .vk is told apart; a file cut,
// extended or with a compressed first point is not a layout.
func TestDecodeLayout(t *testing.T) {
	pk := randomKey(rand.New(rand.NewPCG(3, 4)))
	var buf bytes.Buffer
	_, err := pk.WriteTo(&buf)
	require.NoError(t, err)
	data := buf.Bytes()
	got, err := DecodeProvingKey(data, Options{SkipSubgroupCheck: true})
	require.NoError(t, err)
	l, err := DecodeLayout(data)
	require.NoError(t, err)
	require.Equal(t, Layout{IC: len(got.IC), H: len(got.H), L: len(got.L), A: len(got.A), BG1: len(got.BG1), BG2: len(got.BG2)}, l)
	require.Equal(t, int64(6+3+7+5+4+2+2), l.Points())

	var vk bytes.Buffer
	_, err = pk.VerifyingKey.WriteTo(&vk)
	require.NoError(t, err)
	l, err = DecodeLayout(vk.Bytes())
	require.NoError(t, err)
	require.Equal(t, Layout{IC: 3, VerifyingKeyOnly: true}, l)

	_, err = DecodeLayout(data[:len(data)-1])
	require.ErrorIs(t, err, ErrTruncated)
	_, err = DecodeLayout(append(append([]byte(nil), data...), 0))
	require.ErrorIs(t, err, ErrTrailingData)
	bad := append([]byte(nil), data...)
	bad[G1Uncompressed] |= flagCompressed // beta_g1
	_, err = DecodeLayout(bad)
	require.ErrorIs(t, err, ErrFlags)
	require.ErrorContains(t, err, "beta_g1")
}

// TestCountProofs: n encoded proofs count as n; other sizes, and a point
// without its compression flag, do not.
func TestCountProofs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	proofs := make([]Proof, 3)
	for i := range proofs {
		proofs[i] = Proof{A: randomG1(rng), B: randomG2(rng), C: randomG1(rng)}
	}
	enc := EncodeProofs(proofs)
	n, err := CountProofs(enc)
	require.NoError(t, err)
	require.Equal(t, 3, n)
	for _, size := range []int{0, 191, 193, 1115} {
		_, err := CountProofs(make([]byte, size))
		require.ErrorContains(t, err, "not a positive multiple of 192")
	}
	for _, at := range []int{0, 48, 144, 2*ProofSize + 144} {
		bad := append([]byte(nil), enc...)
		bad[at] &^= flagCompressed
		_, err := CountProofs(bad)
		require.ErrorIs(t, err, ErrFlags, "byte %d", at)
	}
}
