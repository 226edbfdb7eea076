package synthetic

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
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
