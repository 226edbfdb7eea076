package groth16

import (
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/internal/par"
)

// The development setup multiplies one base point by millions of scalars.
// gnark-crypto's BatchScalarMultiplication does ~255 doublings a scalar
// (130 µs a G1 point on the 2-core machine: a 2^24-constraint setup took
// hours). A fixed-base comb precomputes j·2^(w·i)·g for every w-bit window
// i and digit j, so a scalar costs at most ⌈255/w⌉ mixed additions and no
// doubling: w = 8 (32 windows, a 780 KiB G1 table) for small sets, w = 16
// (16 windows, 2^16 points a window) from 2^19 scalars on.

// jacobianOf is what the comb needs of gnark-crypto's Jacobian points
// (G1Jac over G1Affine, G2Jac over G2Affine).
type jacobianOf[J, A any] interface {
	*J
	FromAffine(*A) *J
	AddMixed(*A) *J
	DoubleAssign() *J
}

// comb is a fixed-base table for one base point.
type comb[J, A any, PJ jacobianOf[J, A]] struct {
	w, windows, per int
	table           []A
	toAffine        func([]J) []A
}

// newComb builds the table of base for about n scalars (n picks w); toAffine
// is the group's batch conversion.
func newComb[J, A any, PJ jacobianOf[J, A]](base *A, n int, toAffine func([]J) []A) *comb[J, A, PJ] {
	w := 8
	if n >= 1<<19 {
		w = 16
	}
	c := &comb[J, A, PJ]{w: w, windows: (255 + w - 1) / w, per: 1<<w - 1, toAffine: toAffine}
	// steps[i] = 2^(w·i)·base; table[i·per + j − 1] = j·steps[i]
	steps := make([]J, c.windows)
	PJ(&steps[0]).FromAffine(base)
	for i := 1; i < c.windows; i++ {
		steps[i] = steps[i-1]
		for range w {
			PJ(&steps[i]).DoubleAssign()
		}
	}
	stepsAff := toAffine(steps)
	jt := make([]J, c.windows*c.per)
	par.For(c.windows, func(i int) {
		row := jt[i*c.per : (i+1)*c.per]
		row[0] = steps[i]
		for j := 1; j < c.per; j++ {
			row[j] = row[j-1]
			PJ(&row[j]).AddMixed(&stepsAff[i])
		}
	})
	c.table = toAffine(jt)
	return c
}

// mul returns scalars[i]·base for every i, in affine form; done, when
// set, is told of each chunk of points finished (from several goroutines).
func (c *comb[J, A, PJ]) mul(scalars []fr.Element, done ...func(n int)) []A {
	out := make([]A, len(scalars))
	const chunk = 1 << 12
	mask := uint64(c.per)
	par.For((len(scalars)+chunk-1)/chunk, func(k int) {
		from, to := k*chunk, min((k+1)*chunk, len(scalars))
		acc := make([]J, to-from)
		for i := from; i < to; i++ {
			limbs := scalars[i].Bits() // regular form, little-endian
			p := PJ(&acc[i-from])      // zero value: Z = 0, the point at infinity
			for win := range c.windows {
				bit := win * c.w // w divides 64: a window never straddles limbs
				if d := (limbs[bit/64] >> (bit % 64)) & mask; d != 0 {
					p.AddMixed(&c.table[win*c.per+int(d)-1])
				}
			}
		}
		copy(out[from:to], c.toAffine(acc))
		for _, d := range done {
			d(to - from)
		}
	})
	return out
}

// newCombG1 and newCombG2 build the tables of a G1 or G2 base for about n
// scalars.
func newCombG1(base *bls.G1Affine, n int) *comb[bls.G1Jac, bls.G1Affine, *bls.G1Jac] {
	return newComb[bls.G1Jac](base, n, bls.BatchJacobianToAffineG1)
}

func newCombG2(base *bls.G2Affine, n int) *comb[bls.G2Jac, bls.G2Affine, *bls.G2Jac] {
	return newComb[bls.G2Jac](base, n, batchToAffineG2)
}

// batchToAffineG2 converts Jacobian G2 points with one Fp2 inversion
// (Montgomery's trick); gnark-crypto has the batch conversion for G1 only.
// Points at infinity (Z = 0) become (0, 0).
func batchToAffineG2(points []bls.G2Jac) []bls.G2Affine {
	out := make([]bls.G2Affine, len(points))
	var acc bls.E2
	acc.SetOne()
	for i := range points { // out[i].X = Π_{j<i} Z_j
		if points[i].Z.IsZero() {
			continue
		}
		out[i].X = acc
		acc.Mul(&acc, &points[i].Z)
	}
	acc.Inverse(&acc)
	for i := len(points) - 1; i >= 0; i-- {
		if points[i].Z.IsZero() {
			continue
		}
		var zInv, zInv2 bls.E2
		zInv.Mul(&out[i].X, &acc) // 1/Z_i
		acc.Mul(&acc, &points[i].Z)
		zInv2.Square(&zInv)
		out[i].X.Mul(&points[i].X, &zInv2)
		out[i].Y.Mul(&points[i].Y, &zInv2).Mul(&out[i].Y, &zInv)
	}
	return out
}
