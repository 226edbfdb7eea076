package msm

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"
)

type scalarKind func(rng *rand.Rand, i int) fr.Element

var kinds = map[string]scalarKind{
	"uniform": func(rng *rand.Rand, _ int) fr.Element {
		var b [48]byte
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		var e fr.Element
		e.SetBytes(b[:]) // 384 bits reduced mod r: uniform enough
		return e
	},
	"zeros": func(*rand.Rand, int) fr.Element { return fr.Element{} },
	"ones":  func(*rand.Rand, int) fr.Element { return fr.One() },
	"max": func(*rand.Rand, int) fr.Element {
		var e fr.Element
		e.SetOne()
		return *e.Neg(&e) // r − 1
	},
	"boolean-heavy": func(rng *rand.Rand, _ int) fr.Element {
		var e fr.Element
		switch rng.IntN(20) {
		case 0:
			e.SetUint64(rng.Uint64())
			e.Square(&e)
		default:
			e.SetUint64(uint64(rng.IntN(2)))
		}
		return e
	},
}

func points(rng *rand.Rand, n int, repeat, infinity bool) ([]bls.G1Affine, []bls.G2Affine) {
	_, _, g1, g2 := bls.Generators()
	s := make([]fr.Element, n)
	for i := range s {
		s[i].SetUint64(rng.Uint64() | 1)
	}
	p1 := bls.BatchScalarMultiplicationG1(&g1, s)
	p2 := bls.BatchScalarMultiplicationG2(&g2, s)
	if repeat {
		for i := 1; i < n; i += 2 {
			p1[i], p2[i] = p1[0], p2[0]
		}
	}
	if infinity {
		for i := 0; i < n; i += 3 {
			p1[i].SetInfinity()
			p2[i].SetInfinity()
		}
	}
	return p1, p2
}

func TestSplitMatchesMultiExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for name, kind := range kinds {
		for _, variant := range []struct {
			name             string
			repeat, infinity bool
		}{{"distinct", false, false}, {"repeated", true, false}, {"infinity", false, true}} {
			n := 700
			p1, p2 := points(rng, n, variant.repeat, variant.infinity)
			sc := make([]fr.Element, n)
			for i := range sc {
				sc[i] = kind(rng, i)
			}
			var want1 bls.G1Jac
			_, err := want1.MultiExp(p1, sc, ecc.MultiExpConfig{})
			require.NoError(t, err)
			got1, st, err := G1(p1, sc, 3)
			require.NoError(t, err)
			require.True(t, want1.Equal(&got1), "%s/%s G1", name, variant.name)
			require.Equal(t, n, st.Zeros+st.Ones+st.Others)

			var want2 bls.G2Jac
			_, err = want2.MultiExp(p2, sc, ecc.MultiExpConfig{})
			require.NoError(t, err)
			got2, _, err := G2(p2, sc, 2)
			require.NoError(t, err)
			require.True(t, want2.Equal(&got2), "%s/%s G2", name, variant.name)
		}
	}
	_, _, err := G1(make([]bls.G1Affine, 2), make([]fr.Element, 3), 0)
	require.Error(t, err)
}

func TestSplitCounts(t *testing.T) {
	p1, _ := points(rand.New(rand.NewPCG(3, 4)), 5000, false, false)
	sc := make([]fr.Element, len(p1))
	for i := range sc {
		sc[i].SetUint64(uint64(i % 3)) // 0, 1, 2
	}
	_, st, err := G1(p1, sc, 4)
	require.NoError(t, err)
	require.Equal(t, Stats{Zeros: 1667, Ones: 1667, Others: 1666}, st)
}
