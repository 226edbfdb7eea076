package cuda

import (
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/r1cs"
)

// Mismatched sizes are refused before anything reaches the device (no
// library is loaded here: a call into it would crash).
func TestBadSizesRefusedBeforeTheDevice(t *testing.T) {
	b := &Backend{}
	pts := testPoints(t, 4)
	sc := random(t, 4)
	_, _, _, err := b.HMSM(pts[:2], sc, sc, sc, nil)
	require.ErrorContains(t, err, "h msm: a, b, c of 4/4/4 elements, 2 points")
	_, _, _, err = b.HMSM(pts[:3], sc, sc[:3], sc, nil)
	require.ErrorContains(t, err, "h msm")
	_, _, err = b.MSMG1(pts, sc[:3])
	require.ErrorContains(t, err, "4 points, 3 scalars")
	_, _, err = b.MSMG2(make([]bls.G2Affine, 2), sc, 0)
	require.ErrorContains(t, err, "2 points, 4 scalars")
	bits := r1cs.NewBitmap(5)
	_, err = b.selectScalars(&scalars{b: b, n: 4}, nil, &bits)
	require.ErrorContains(t, err, "density bitmap of 5 bits for 4 scalars")
	_, err = msmOn[bls.G1Affine, bls.G1Jac](nil, nil, pts, &scalars{n: 3})
	require.ErrorContains(t, err, "4 points for 3 selected scalars")
}
