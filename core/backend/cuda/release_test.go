package cuda

import (
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/require"
)

// forget frees the sets within a key's slice (whole or prefix) and leaves
// the others resident; the budget gets their bytes back.
func TestForgetFreesSetsOfOneSlice(t *testing.T) {
	pts, other := testPoints(t, 64), testPoints(t, 32)
	store := &fakeStore{capacity: 1 << 30}
	mem := &vram{budget: 1 << 20}
	r := newResidency[bls.G1Affine, bls.G1Jac](store, mem)
	for _, s := range [][]bls.G1Affine{pts, pts[:40], other} {
		h, err := r.handle(s)
		require.NoError(t, err)
		require.NotNil(t, h)
	}
	require.Equal(t, 3, store.uploads)
	r.forget(pts)
	require.Equal(t, 2, store.frees)
	require.Equal(t, uint64(len(other))*g1Bytes, mem.used)
	require.Equal(t, mem.used, store.live)
	r.forget(pts) // nothing left of it
	r.forget(nil)
	require.Equal(t, 2, store.frees)
	_, err := r.handle(pts) // uploaded again on next use
	require.NoError(t, err)
	require.Equal(t, 4, store.uploads)
}
