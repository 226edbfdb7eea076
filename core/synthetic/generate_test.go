package synthetic

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
)

func TestGenerateSatisfiedAndSized(t *testing.T) {
	for _, s := range []Spec{
		{Constraints: 1 << 10, DenseFraction: 0.5, Seed: 3},
		{Constraints: 1 << 12, DenseFraction: 0.05, Seed: 4},
		{Constraints: 1 << 12, DenseFraction: 1, Seed: 5},
		{Constraints: 1 << 11, DenseFraction: 0, Seed: 6},
	} {
		cs, w, err := Generate(s)
		require.NoError(t, err)
		require.NoError(t, cs.IsSatisfied(w))
		require.LessOrEqual(t, cs.Rows(), s.Constraints)
		require.Greater(t, cs.Rows(), s.Constraints-bitRows)
		require.Equal(t, s.Constraints, cs.DomainSize())
	}
	_, _, err := Generate(Spec{Constraints: 2})
	require.Error(t, err)
}

func TestRandomShapesSatisfied(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, shape := range Shapes {
		cs, w := Random(rng, shape, 100)
		require.NoError(t, cs.IsSatisfied(w), shape.String())
		if shape == ShapeInputsOnly {
			require.Zero(t, cs.NumAux)
		}
		if shape == ShapeAuxOnly {
			require.Equal(t, 1, cs.NumInputs)
		}
	}
}

func TestSeedChangesOnlyTheWitness(t *testing.T) {
	a, wa, err := Generate(Spec{Constraints: 1 << 9, DenseFraction: 0.5, Seed: 1})
	require.NoError(t, err)
	b, wb, err := Generate(Spec{Constraints: 1 << 9, DenseFraction: 0.5, Seed: 2})
	require.NoError(t, err)
	require.Equal(t, a, b)
	require.NotEqual(t, wa, wb)
	require.NoError(t, a.IsSatisfied(wb))
}

func TestTiledKeyFitsAndIsValid(t *testing.T) {
	cs, _, err := Generate(Spec{Constraints: 1 << 10, DenseFraction: 0.2, Seed: 1})
	require.NoError(t, err)
	pk := TiledKey(cs, 9)
	require.NoError(t, groth16.CheckKey(pk, cs))
	for _, p := range [][]bls.G1Affine{pk.H, pk.L, pk.A, pk.BG1, pk.IC} {
		for i := range p {
			require.True(t, p[i].IsInSubGroup())
		}
	}
	for i := range pk.BG2 {
		require.True(t, pk.BG2[i].IsInSubGroup())
	}
	require.NotEqual(t, TiledKey(cs, 10).H[0], pk.H[0], "the seed changes the points")
}

// The streamed file is the one the key in memory writes, byte for byte,
// and reads back as that key: sections longer than the tiles (2^13 rows
// against 4096 G1 and 1024 G2 points) cut the last copy.
func TestWriteTiledKeyWritesTheTiledKey(t *testing.T) {
	cs, _, err := Generate(Spec{Constraints: 1<<13 - 8, DenseFraction: 0.2, Seed: 1})
	require.NoError(t, err)
	pk := TiledKey(cs, 3)
	require.Greater(t, len(pk.H), 4096)
	require.Greater(t, len(pk.BG2), 1024)
	var want bytes.Buffer
	_, err = pk.WriteTo(&want)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "tiled.params")
	require.NoError(t, WriteTiledKey(path, cs, 3))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, bytes.Equal(want.Bytes(), got), "streamed file differs from the key's WriteTo")
	back, err := params.ReadProvingKey(path, params.Options{SkipSubgroupCheck: true})
	require.NoError(t, err)
	require.Equal(t, pk.BG2, back.BG2)
	require.Equal(t, pk.H, back.H)
}
