package cuda

import (
	"math/big"
	"testing"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/require"
)

// The result block's layout is cuzk_cuda.h's: int32 c, nw, two int32 of
// padding, then the points from byte 16.
func TestWindowSumsLayout(t *testing.T) {
	var g1 windowSums[bls.G1Jac]
	var g2 windowSums[bls.G2Jac]
	require.EqualValues(t, 16, unsafe.Offsetof(g1.w))
	require.EqualValues(t, 16, unsafe.Offsetof(g2.w))
	require.EqualValues(t, 16+maxWindows*144, unsafe.Sizeof(g1))
	require.EqualValues(t, 16+maxWindows*288, unsafe.Sizeof(g2))
}

// combine equals Σ_w 2^(c·w)·W_w computed by scalar multiplications.
func TestCombineWindows(t *testing.T) {
	pts := testPoints(t, maxWindows)
	for _, shape := range []struct{ c, nw int32 }{{16, 16}, {8, 32}, {13, 20}, {20, 13}, {15, 1}, {12, 0}} {
		var ws windowSums[bls.G1Jac]
		ws.c, ws.nw = shape.c, shape.nw
		var want bls.G1Jac
		for w := 0; w < int(shape.nw); w++ {
			ws.w[w].FromAffine(&pts[w])
			if w == 3 {
				ws.w[w] = bls.G1Jac{} // a window at infinity (Z = 0)
				continue
			}
			var term bls.G1Jac
			term.ScalarMultiplication(&ws.w[w], new(big.Int).Lsh(big.NewInt(1), uint(int(shape.c)*w)))
			want.AddAssign(&term)
		}
		got, err := combine(&ws)
		require.NoError(t, err)
		require.True(t, want.Equal(&got), "c %d, %d windows", shape.c, shape.nw)
	}
	for _, bad := range []struct{ c, nw int32 }{{16, -1}, {16, maxWindows + 1}, {0, 3}, {40, 3}} {
		ws := windowSums[bls.G1Jac]{c: bad.c, nw: bad.nw}
		_, err := combine(&ws)
		require.ErrorContains(t, err, "malformed MSM result")
	}
}
