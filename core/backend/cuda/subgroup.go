package cuda

import (
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// CheckSubgroupG1 returns the index of the first of points outside the
// prime-order subgroup G1, or −1 when all are in it (infinity is), checked
// on the GPU (cuda/subgroup/subgroup.cuh) over the resident copy of points:
// the set stays resident for the MSMs over it that follow, so loading a
// parameter file uploads its points once for both. A set beyond the resident budget
// streams through the device in chunks. The points must be on the curve
// (the parameter decoder checks that); points must not change afterwards
// while they are resident (as for the MSMs).
func (b *Backend) CheckSubgroupG1(points []bls.G1Affine) (int, error) {
	_, first, err := b.g1.checkSubgroup(points)
	return first, err
}

// CheckSubgroupG2 is CheckSubgroupG1 for G2.
func (b *Backend) CheckSubgroupG2(points []bls.G2Affine) (int, error) {
	_, first, err := b.g2.checkSubgroup(points)
	return first, err
}
