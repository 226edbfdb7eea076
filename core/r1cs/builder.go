package r1cs

import (
	"fmt"
	"slices"
	"sort"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Variable names an input or an aux variable of a Builder.
type Variable struct {
	id    uint32
	input bool
}

// Term is coeff·var.
type Term struct {
	Var   Variable
	Coeff fr.Element
}

// LC is a linear combination of variables.
type LC []Term

// Builder assembles a constraint system together with its witness. It is
// the way Go code (the demo, the synthetic circuits, tests) writes circuits.
type Builder struct {
	inputs, aux []fr.Element
	rows        [3]stagedMatrix
	n           int
}

type stagedMatrix struct {
	rowPtr []uint64
	vars   []Variable
	coeffs []fr.Element
}

// NewBuilder returns a builder holding the constant ONE as input 0.
func NewBuilder() *Builder {
	b := &Builder{}
	for i := range b.rows {
		b.rows[i].rowPtr = []uint64{0}
	}
	b.inputs = append(b.inputs, fr.One())
	b.aux = []fr.Element{}
	return b
}

// One returns the constant ONE.
func (b *Builder) One() Variable { return Variable{id: 0, input: true} }

// Input allocates a public input with value v.
func (b *Builder) Input(v fr.Element) Variable {
	b.inputs = append(b.inputs, v)
	return Variable{id: uint32(len(b.inputs) - 1), input: true}
}

// Aux allocates a private (auxiliary) variable with value v.
func (b *Builder) Aux(v fr.Element) Variable {
	b.aux = append(b.aux, v)
	return Variable{id: uint32(len(b.aux) - 1)}
}

// Value returns the witness value of v.
func (b *Builder) Value(v Variable) fr.Element {
	if v.input {
		return b.inputs[v.id]
	}
	return b.aux[v.id]
}

// SetValue changes the witness value of v (for values known only after the
// variable had to be allocated, such as a public output).
func (b *Builder) SetValue(v Variable, val fr.Element) {
	if v.input {
		b.inputs[v.id] = val
	} else {
		b.aux[v.id] = val
	}
}

// Enforce adds the constraint <a,z>·<b,z> = <c,z>.
func (b *Builder) Enforce(a, bb, c LC) {
	for i, lc := range [3]LC{a, bb, c} {
		m := &b.rows[i]
		for _, t := range merge(lc) {
			m.vars = append(m.vars, t.Var)
			m.coeffs = append(m.coeffs, t.Coeff)
		}
		m.rowPtr = append(m.rowPtr, uint64(len(m.vars)))
	}
	b.n++
}

// Grow reserves room for constraints more constraints holding terms[i]
// more terms in matrix i (A, B, C) and for aux more aux variables: for
// generators of large circuits, whose staged slices otherwise grow by
// copying (~40% of a 2^22-row synthetic circuit's generation).
func (b *Builder) Grow(constraints int, terms [3]int, aux int) {
	for i := range b.rows {
		m := &b.rows[i]
		m.rowPtr = slices.Grow(m.rowPtr, constraints)
		m.vars = slices.Grow(m.vars, terms[i])
		m.coeffs = slices.Grow(m.coeffs, terms[i])
	}
	b.aux = slices.Grow(b.aux, aux)
}

// merge sorts a copy of lc by variable, adds up duplicate terms and drops
// zero coefficients; an lc already in that form is returned as it is.
func merge(lc LC) LC {
	if merged(lc) {
		return lc
	}
	out := append(LC(nil), lc...)
	sort.SliceStable(out, func(i, j int) bool { return less(out[i].Var, out[j].Var) })
	k := 0
	for _, t := range out {
		if k > 0 && out[k-1].Var == t.Var {
			out[k-1].Coeff.Add(&out[k-1].Coeff, &t.Coeff)
			continue
		}
		out[k] = t
		k++
	}
	out = out[:k]
	k = 0
	for _, t := range out {
		if !t.Coeff.IsZero() {
			out[k] = t
			k++
		}
	}
	return out[:k]
}

// merged reports whether lc's variables increase strictly and its
// coefficients are all non-zero (most constraints' combinations).
func merged(lc LC) bool {
	for i := range lc {
		if lc[i].Coeff.IsZero() || (i > 0 && !less(lc[i-1].Var, lc[i].Var)) {
			return false
		}
	}
	return true
}

func less(a, b Variable) bool {
	if a.input != b.input {
		return a.input
	}
	return a.id < b.id
}

// Build compiles the constraints and returns the system and its witness.
func (b *Builder) Build() (*R1CS, *Witness) {
	r := b.compile(len(b.inputs), len(b.aux))
	w := &Witness{Inputs: slices.Clone(b.inputs), Aux: slices.Clone(b.aux)}
	return r, w
}

// newShapeBuilder returns a builder for a system of known sizes whose
// witness is not built (importers): it allocates nothing per variable.
func newShapeBuilder() *Builder {
	b := &Builder{}
	for i := range b.rows {
		b.rows[i].rowPtr = []uint64{0}
	}
	return b
}

// compile turns the staged constraints into a system with the given sizes.
func (b *Builder) compile(numInputs, numAux int) *R1CS {
	r := &R1CS{NumInputs: numInputs, NumAux: numAux, NumConstraints: b.n}
	in := newInterner()
	for i, dst := range []*Matrix{&r.A, &r.B, &r.C} {
		m := &b.rows[i]
		dst.RowPtr = append([]uint64(nil), m.rowPtr...)
		dst.Col = make([]uint32, len(m.vars))
		dst.Val = make([]uint32, len(m.vars))
		for t, v := range m.vars {
			dst.Col[t] = v.id
			if !v.input {
				dst.Col[t] += uint32(r.NumInputs)
			}
			dst.Val[t] = in.index(&m.coeffs[t])
		}
	}
	r.Coeffs = in.table
	r.computeDensity()
	return r
}

// interner assigns table indices to coefficients; 1 and -1 come first.
type interner struct {
	table []fr.Element
	ids   map[fr.Element]uint32
}

func newInterner() *interner {
	one := fr.One()
	var minusOne fr.Element
	minusOne.Neg(&one)
	return &interner{table: []fr.Element{one, minusOne}, ids: map[fr.Element]uint32{one: 0, minusOne: 1}}
}

func (in *interner) index(c *fr.Element) uint32 {
	switch { // most terms' coefficients: no map lookup
	case c.Equal(&in.table[0]):
		return 0
	case c.Equal(&in.table[1]):
		return 1
	}
	if i, ok := in.ids[*c]; ok {
		return i
	}
	i := uint32(len(in.table))
	in.table = append(in.table, *c)
	in.ids[*c] = i
	return i
}

// CSR is one matrix given in compressed sparse row form over [inputs | aux].
type CSR struct {
	RowPtr []uint64 // rows + 1 entries, starting at 0, non-decreasing
	Col    []uint32
	Coeff  []fr.Element
}

// FromCSR builds a system from matrices given in CSR form (merging
// duplicate terms and dropping zeros, like Builder), checking every index.
func FromCSR(numInputs, numAux, numConstraints int, m [3]CSR) (*R1CS, error) {
	if numInputs < 1 || numAux < 0 || numConstraints < 0 || uint64(numInputs)+uint64(numAux) > maxVars {
		return nil, fmt.Errorf("r1cs: invalid sizes: %d inputs, %d aux, %d constraints", numInputs, numAux, numConstraints)
	}
	b := newShapeBuilder()
	nv := uint32(numInputs + numAux)
	for i, x := range m {
		if len(x.RowPtr) != numConstraints+1 || x.RowPtr[0] != 0 {
			return nil, fmt.Errorf("r1cs: matrix %c: %d row pointers for %d constraints", "abc"[i], len(x.RowPtr), numConstraints)
		}
		nnz := x.RowPtr[numConstraints]
		if uint64(len(x.Col)) != nnz || uint64(len(x.Coeff)) != nnz {
			return nil, fmt.Errorf("r1cs: matrix %c: %d columns and %d coefficients for %d terms", "abc"[i], len(x.Col), len(x.Coeff), nnz)
		}
		for k := 0; k < numConstraints; k++ {
			if x.RowPtr[k+1] < x.RowPtr[k] {
				return nil, fmt.Errorf("r1cs: matrix %c: row %d: row pointers decrease", "abc"[i], k)
			}
		}
		for t, c := range x.Col {
			if c >= nv {
				return nil, fmt.Errorf("r1cs: matrix %c: term %d: variable %d out of range (%d variables)", "abc"[i], t, c, nv)
			}
		}
	}
	variable := func(c uint32) Variable {
		if int(c) < numInputs {
			return Variable{id: c, input: true}
		}
		return Variable{id: c - uint32(numInputs)}
	}
	for k := 0; k < numConstraints; k++ {
		var lcs [3]LC
		for i, x := range m {
			for t := x.RowPtr[k]; t < x.RowPtr[k+1]; t++ {
				lcs[i] = append(lcs[i], Term{Var: variable(x.Col[t]), Coeff: x.Coeff[t]})
			}
		}
		b.Enforce(lcs[0], lcs[1], lcs[2])
	}
	return b.compile(numInputs, numAux), nil
}
