package cuda

import (
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk/cuzk/core/params"
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

// BeginG1 implements params.RangeChecker: a section of points checked
// range by range as it is decoded, into the resident copy the MSMs use
// afterwards (or streamed when the set does not stay resident).
func (b *Backend) BeginG1(points []bls.G1Affine) params.SectionCheck {
	return sectionCheck[bls.G1Affine, bls.G1Jac, *bls.G1Jac]{b.g1.beginCheck(points)}
}

// BeginG2 is BeginG1 for G2.
func (b *Backend) BeginG2(points []bls.G2Affine) params.SectionCheck {
	return sectionCheck[bls.G2Affine, bls.G2Jac, *bls.G2Jac]{b.g2.beginCheck(points)}
}

type sectionCheck[P comparable, R any, PR jacobian[R]] struct{ c *rangeCheck[P, R, PR] }

func (s sectionCheck[P, R, PR]) Check(from, to int) (int, error) {
	_, first, err := s.c.check(from, to)
	return first, err
}

func (s sectionCheck[P, R, PR]) Fill(from, to int) error { return s.c.fill(from, to) }

func (s sectionCheck[P, R, PR]) Done(complete bool) { s.c.done(complete) }
