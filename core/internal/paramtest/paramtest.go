// Package paramtest makes invalid parameter files for tests: points on the
// curve but outside the prime-order subgroup, and where to put them.
package paramtest

import (
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// OffSubgroupG1 returns a point of y² = x³ + 4 outside the subgroup: the
// first x = 0, 1, 2, … with a square root (the cofactor is ~2^126, so
// almost every curve point is outside).
func OffSubgroupG1() bls.G1Affine {
	var b fp.Element
	b.SetUint64(4)
	for x := uint64(0); ; x++ {
		var p bls.G1Affine
		p.X.SetUint64(x)
		var y2 fp.Element
		y2.Square(&p.X).Mul(&y2, &p.X).Add(&y2, &b)
		if p.Y.Sqrt(&y2) != nil && p.IsOnCurve() && !p.IsInSubGroup() {
			return p
		}
	}
}

// OffSubgroupG2 returns a point of the twist y² = x³ + 4(1 + u) outside
// the subgroup, with x = k + u for the first k that works.
func OffSubgroupG2() bls.G2Affine {
	var b bls.E2
	b.A0.SetUint64(4)
	b.A1.SetUint64(4)
	for k := uint64(1); ; k++ {
		var p bls.G2Affine
		p.X.A0.SetUint64(k)
		p.X.A1.SetUint64(1)
		var y2 bls.E2
		y2.Square(&p.X).Mul(&y2, &p.X).Add(&y2, &b)
		if y2.Legendre() != 1 {
			continue
		}
		p.Y.Sqrt(&y2)
		if p.IsOnCurve() && !p.IsInSubGroup() {
			return p
		}
	}
}

// Counts are the section lengths of a parameter file.
type Counts struct{ IC, H, L, A, BG1 int }

// Offset returns the byte offset of point i of section ("ic", "h", "l",
// "a", "b_g1" or "b_g2") in a parameter file with counts c (design §3: the
// verifying key's six points, then each section's u32 count and points).
func Offset(c Counts, section string, i int) int {
	const g1, g2 = 96, 192
	off := 3*g1 + 3*g2 + 4
	for _, s := range []struct {
		name string
		n    int
	}{{"ic", c.IC}, {"h", c.H}, {"l", c.L}, {"a", c.A}, {"b_g1", c.BG1}} {
		if s.name == section {
			return off + i*g1
		}
		off += s.n*g1 + 4
	}
	return off + i*g2
}
