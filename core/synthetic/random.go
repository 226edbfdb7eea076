package synthetic

import (
	"math/rand/v2"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/r1cs"
)

// Shape selects the kind of random circuit.
type Shape int

// Shapes of random circuits, each an edge case of the prover.
const (
	ShapeDense      Shape = iota // random values and coefficients everywhere
	ShapeBoolean                 // 90% of values 0 or 1, ±1 coefficients
	ShapeInputsOnly              // every variable is a public input (no aux)
	ShapeAuxOnly                 // only the constant ONE is public
	ShapeDuplicates              // linear combinations repeat variables
	ShapeZeroRows                // many empty A, B or C sides, and whole empty rows
)

// Shapes lists every shape, for table-driven tests.
var Shapes = []Shape{ShapeDense, ShapeBoolean, ShapeInputsOnly, ShapeAuxOnly, ShapeDuplicates, ShapeZeroRows}

func (s Shape) String() string {
	return [...]string{"dense", "boolean", "inputs-only", "aux-only", "duplicates", "zero-rows"}[s]
}

// Random returns a satisfied random circuit of the given shape with about
// nConstraints constraints and its witness.
func Random(rng *rand.Rand, shape Shape, nConstraints int) (*r1cs.R1CS, *r1cs.Witness) {
	b := r1cs.NewBuilder()
	nVars := max(2, nConstraints/2)
	var vars []r1cs.Variable
	randElem := func() fr.Element {
		var e fr.Element
		e.SetUint64(rng.Uint64())
		var f fr.Element
		f.SetUint64(rng.Uint64())
		e.Mul(&e, &f).Add(&e, &f) // spread over the field
		return e
	}
	value := func() fr.Element {
		if shape == ShapeBoolean && rng.IntN(10) != 0 {
			var e fr.Element
			e.SetUint64(uint64(rng.IntN(2)))
			return e
		}
		return randElem()
	}
	nInputs := 1 + rng.IntN(4)
	switch shape {
	case ShapeInputsOnly:
		nInputs = nVars
	case ShapeAuxOnly:
		nInputs = 0
	}
	for i := 0; i < nVars; i++ {
		if i < nInputs {
			vars = append(vars, b.Input(value()))
		} else {
			vars = append(vars, b.Aux(value()))
		}
	}
	vars = append(vars, b.One())

	coeff := func() fr.Element {
		if shape == ShapeBoolean {
			if rng.IntN(2) == 0 {
				return fr.One()
			}
			var m fr.Element
			m.SetOne()
			return *m.Neg(&m)
		}
		return randElem()
	}
	randLC := func() r1cs.LC {
		if shape == ShapeZeroRows && rng.IntN(3) == 0 {
			return nil
		}
		lc := r1cs.LC{}
		for k := 1 + rng.IntN(4); k > 0; k-- {
			v := vars[rng.IntN(len(vars))]
			lc = append(lc, r1cs.Term{Var: v, Coeff: coeff()})
			if shape == ShapeDuplicates && rng.IntN(2) == 0 {
				lc = append(lc, r1cs.Term{Var: v, Coeff: coeff()})
			}
		}
		return lc
	}
	eval := func(lc r1cs.LC) fr.Element {
		var acc, t fr.Element
		for _, term := range lc {
			v := b.Value(term.Var)
			t.Mul(&term.Coeff, &v)
			acc.Add(&acc, &t)
		}
		return acc
	}
	for k := 0; k < nConstraints; k++ {
		if shape == ShapeZeroRows && rng.IntN(8) == 0 {
			b.Enforce(nil, nil, nil)
			continue
		}
		a, bb, c := randLC(), randLC(), randLC()
		// Make the row hold: add (a·b − c) times ONE to c.
		av, bv, cv := eval(a), eval(bb), eval(c)
		var fix fr.Element
		fix.Mul(&av, &bv).Sub(&fix, &cv)
		if !fix.IsZero() {
			c = append(c, r1cs.Term{Var: b.One(), Coeff: fix})
		}
		b.Enforce(a, bb, c)
	}
	return b.Build()
}
