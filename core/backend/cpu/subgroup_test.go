package cpu

import (
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/internal/paramtest"
)

var _ backend.SubgroupChecker = (*Backend)(nil)

// The first point outside the subgroup is found whichever goroutine's range
// holds it, with later ones and infinity around it.
func TestCheckSubgroupFindsTheFirst(t *testing.T) {
	_, _, g1, g2 := bls.Generators()
	var k fr.Element
	k.SetUint64(12345)
	pts1 := bls.BatchScalarMultiplicationG1(&g1, []fr.Element{k, k, k, k, k, k, k, k, k, k, k, k, k, k, k, k, k, k, k, k})
	pts2 := bls.BatchScalarMultiplicationG2(&g2, []fr.Element{k, k, k, k, k, k, k, k, k, k, k, k, k, k, k, k, k, k, k, k})
	pts1[3] = bls.G1Affine{} // infinity is in the subgroup
	pts2[3] = bls.G2Affine{}
	var bad1 bls.G1Affine // (0, 2): on the curve, of order 3
	bad1.Y.SetUint64(2)
	bad2 := paramtest.OffSubgroupG2()
	for _, tasks := range []int{1, 3, 7, 40} {
		b := &Backend{NbTasks: tasks}
		first, err := b.CheckSubgroupG1(pts1)
		require.NoError(t, err)
		require.Equal(t, -1, first)
		first, err = b.CheckSubgroupG2(pts2)
		require.NoError(t, err)
		require.Equal(t, -1, first)
		for _, at := range [][]int{{19}, {0, 5}, {17, 9, 12}} {
			p1 := append([]bls.G1Affine(nil), pts1...)
			p2 := append([]bls.G2Affine(nil), pts2...)
			for _, i := range at {
				p1[i], p2[i] = bad1, bad2
			}
			want := at[0]
			for _, i := range at {
				want = min(want, i)
			}
			first, err = b.CheckSubgroupG1(p1)
			require.NoError(t, err)
			require.Equal(t, want, first, "G1, %d tasks, bad at %v", tasks, at)
			first, err = b.CheckSubgroupG2(p2)
			require.NoError(t, err)
			require.Equal(t, want, first, "G2, %d tasks, bad at %v", tasks, at)
		}
	}
	first, err := (&Backend{}).CheckSubgroupG1(nil)
	require.NoError(t, err)
	require.Equal(t, -1, first)
}
