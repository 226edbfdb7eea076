package r1cs

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// maxVars bounds the variables of a system read from outside (2^31: eight
// times a 32 GiB PoRep partition's ~2^27), so that a corrupt header cannot
// make the reader allocate the density bitmaps of billions of variables.
const maxVars = 1 << 31

// Coefficient table indices with a fast path in evaluation.
const (
	CoeffOne      = 0
	CoeffMinusOne = 1
)

// Matrix is one of A, B, C in compressed sparse row form: row k's terms are
// Col[RowPtr[k]:RowPtr[k+1]] with coefficients Coeffs[Val[...]].
type Matrix struct {
	RowPtr []uint64
	Col    []uint32 // variable index in [inputs | aux]
	Val    []uint32 // index into R1CS.Coeffs
}

// NNZ returns the number of stored terms.
func (m *Matrix) NNZ() int { return len(m.Col) }

// R1CS is a compiled constraint system.
type R1CS struct {
	NumInputs      int // including the constant ONE
	NumAux         int
	NumConstraints int
	// Coeffs is the interned coefficient table; Coeffs[0] = 1, Coeffs[1] = -1.
	Coeffs  []fr.Element
	A, B, C Matrix
	Density Density
}

// Density holds the bitmaps that select A and B query points; bits are
// stored in u64 words, least significant bit first, as supraseal-c2 expects.
type Density struct {
	AAux   Bitmap // aux variable appears in some A row
	BInput Bitmap // input appears in some B row
	BAux   Bitmap // aux variable appears in some B row
}

// Bitmap is a bit vector of Len bits.
type Bitmap struct {
	Words []uint64
	Len   int
}

// NewBitmap returns an all-zero bitmap of n bits.
func NewBitmap(n int) Bitmap { return Bitmap{Words: make([]uint64, (n+63)/64), Len: n} }

// Set sets bit i.
func (b *Bitmap) Set(i int) { b.Words[i/64] |= 1 << (i % 64) }

// Get reports bit i.
func (b *Bitmap) Get(i int) bool { return b.Words[i/64]>>(i%64)&1 == 1 }

// Count returns the number of set bits.
func (b *Bitmap) Count() int {
	n := 0
	for _, w := range b.Words {
		n += bits.OnesCount64(w)
	}
	return n
}

// NumVars returns NumInputs + NumAux.
func (r *R1CS) NumVars() int { return r.NumInputs + r.NumAux }

// Rows returns the number of evaluated rows: constraints plus one per input.
func (r *R1CS) Rows() int { return r.NumConstraints + r.NumInputs }

// DomainSize returns the smallest power of two ≥ Rows(), and at least 2
// (H has N−1 points), the evaluation domain of the QAP.
func (r *R1CS) DomainSize() int {
	n := 2
	for n < r.Rows() {
		n <<= 1
	}
	return n
}

// computeDensity fills r.Density from the matrices.
func (r *R1CS) computeDensity() {
	r.Density = Density{AAux: NewBitmap(r.NumAux), BInput: NewBitmap(r.NumInputs), BAux: NewBitmap(r.NumAux)}
	for _, col := range r.A.Col {
		if int(col) >= r.NumInputs {
			r.Density.AAux.Set(int(col) - r.NumInputs)
		}
	}
	for _, col := range r.B.Col {
		if int(col) >= r.NumInputs {
			r.Density.BAux.Set(int(col) - r.NumInputs)
		} else {
			r.Density.BInput.Set(int(col))
		}
	}
}

// Witness is a full assignment.
type Witness struct {
	Inputs []fr.Element // Inputs[0] must be 1
	Aux    []fr.Element
}

// ErrUnsatisfied is wrapped by the error of a witness that fails a constraint.
var ErrUnsatisfied = errors.New("constraint not satisfied")

// CheckWitness verifies the witness sizes and the constant ONE.
func (r *R1CS) CheckWitness(w *Witness) error {
	if len(w.Inputs) != r.NumInputs {
		return fmt.Errorf("r1cs: witness has %d inputs, circuit has %d", len(w.Inputs), r.NumInputs)
	}
	if len(w.Aux) != r.NumAux {
		return fmt.Errorf("r1cs: witness has %d aux values, circuit has %d", len(w.Aux), r.NumAux)
	}
	if !w.Inputs[0].IsOne() {
		return errors.New("r1cs: witness input 0 (the constant ONE) is not 1")
	}
	return nil
}

// validate checks the structural invariants of a system read from outside.
func (r *R1CS) validate() error {
	if r.NumInputs < 1 {
		return errors.New("a circuit needs at least the constant ONE input")
	}
	if r.NumVars() > maxVars {
		return fmt.Errorf("%d variables exceed the %d this build accepts", r.NumVars(), maxVars)
	}
	if len(r.Coeffs) < 2 || !r.Coeffs[CoeffOne].IsOne() {
		return errors.New("coefficient table must start with 1, -1")
	}
	var minusOne fr.Element
	minusOne.SetOne().Neg(&minusOne)
	if !r.Coeffs[CoeffMinusOne].Equal(&minusOne) {
		return errors.New("coefficient table must start with 1, -1")
	}
	for _, m := range []struct {
		name string
		m    *Matrix
	}{{"a", &r.A}, {"b", &r.B}, {"c", &r.C}} {
		if len(m.m.RowPtr) != r.NumConstraints+1 || m.m.RowPtr[0] != 0 {
			return fmt.Errorf("%s: row pointer table has %d entries, want %d", m.name, len(m.m.RowPtr), r.NumConstraints+1)
		}
		if len(m.m.Col) != len(m.m.Val) || m.m.RowPtr[r.NumConstraints] != uint64(len(m.m.Col)) {
			return fmt.Errorf("%s: row pointers do not match %d terms", m.name, len(m.m.Col))
		}
		for k := 0; k < r.NumConstraints; k++ {
			if m.m.RowPtr[k+1] < m.m.RowPtr[k] {
				return fmt.Errorf("%s: row %d: row pointers decrease", m.name, k)
			}
		}
		nv, nc := uint32(r.NumVars()), uint32(len(r.Coeffs))
		for t := range m.m.Col {
			if m.m.Col[t] >= nv {
				return fmt.Errorf("%s: term %d: variable %d out of range (%d variables)", m.name, t, m.m.Col[t], nv)
			}
			if m.m.Val[t] >= nc {
				return fmt.Errorf("%s: term %d: coefficient %d out of range (%d coefficients)", m.name, t, m.m.Val[t], nc)
			}
		}
	}
	return nil
}
