package groth16

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/r1cs"
)

// The parallel gather equals a plain loop over the bitmaps, across block
// boundaries (2^18 variables a block) and with recycled vectors.
func TestGatherMatchesSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 63, 64, 65, 1 << 18, 1<<18 + 1, 3<<18 + 77} {
		for _, density := range []float64{0, 0.05, 0.5, 1} {
			aux := make([]fr.Element, n)
			for i := range aux {
				aux[i].SetUint64(uint64(i + 1))
			}
			inputs := []fr.Element{fr.One(), {7}, {9}}
			bm := func(m int) *r1cs.Bitmap {
				b := &r1cs.Bitmap{Len: m, Words: make([]uint64, (m+63)/64)}
				for i := 0; i < m; i++ {
					if rng.Float64() < density {
						b.Words[i/64] |= 1 << (i % 64)
					}
				}
				return b
			}
			inD, auxD := bm(len(inputs)), bm(n)
			for round := 0; round < 2; round++ { // the second round reuses vectors
				for _, in := range []*r1cs.Bitmap{nil, inD} {
					var want []fr.Element
					for i := range inputs {
						if in == nil || in.Get(i) {
							want = append(want, inputs[i])
						}
					}
					for j := range aux {
						if auxD.Get(j) {
							want = append(want, aux[j])
						}
					}
					got := gather(inputs, in, aux, auxD)
					require.Equal(t, len(want), len(got), "n %d density %g", n, density)
					for i := range want {
						require.True(t, want[i].Equal(&got[i]), "n %d density %g: element %d", n, density, i)
					}
					recycle.put(got)
				}
			}
		}
	}
}
