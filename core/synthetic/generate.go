package synthetic

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/r1cs"
)

// Spec describes a generated circuit.
type Spec struct {
	// Constraints is the target number of rows (constraints plus one per
	// public input); the result has at most this many, and at least this
	// many minus one block (a hash round or a bit decomposition).
	Constraints int
	// DenseFraction is the share of constraints in the hash-chain section
	// (dense witness values); the rest are bit decompositions (boolean
	// witness values, ±1 and power-of-two coefficients).
	DenseFraction float64
	// Seed makes the witness reproducible. It changes only the witness:
	// circuits of one Constraints and DenseFraction share one structure
	// (and so one set of parameters), like the partitions of a proof.
	Seed uint64
}

// DemoSpec is the circuit `cuzk demo` proves: 2^16 rows, half hash chain,
// half bit decompositions.
var DemoSpec = Spec{Constraints: 1 << 16, DenseFraction: 0.5, Seed: 1}

// seedElement derives a field element from the seed and a counter.
func seedElement(seed uint64, i uint64) fr.Element {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], seed)
	binary.LittleEndian.PutUint64(b[8:], i)
	h := sha256.Sum256(b[:])
	var e fr.Element
	e.SetBytes(h[:])
	return e
}

const (
	roundRows = 3   // t² , t⁴, t⁵ per hash round
	bitRows   = 256 // 255 boolean constraints + 1 packing
	publicIn  = 2   // seed and final hash value
)

// Generate builds the circuit and witness described by s.
//
// Hash section: x_{i+1} = (x_i + k_i)^5 with round constants k_i, a MiMC-like
// chain (three multiplication constraints per round). Bit section: values
// taken from the chain are decomposed into 255 bits b_j with b_j·(b_j − 1) = 0
// and Σ 2^j·b_j = x. Public inputs: the chain's start and end.
func Generate(s Spec) (*r1cs.R1CS, *r1cs.Witness, error) {
	if s.Constraints < publicIn+1+roundRows || s.DenseFraction < 0 || s.DenseFraction > 1 {
		return nil, nil, fmt.Errorf("synthetic: need at least %d constraints and a dense fraction in [0, 1] (got %d, %g)", publicIn+1+roundRows, s.Constraints, s.DenseFraction)
	}
	budget := s.Constraints - (publicIn + 1) - 1 // rows left after the input rows (ONE included) and the output binding
	rounds := max(1, int(float64(budget)*s.DenseFraction)/roundRows)
	budget -= rounds * roundRows
	decomps := budget / bitRows
	fill := budget - decomps*bitRows // spare rows: small boolean constraints

	b := r1cs.NewBuilder()
	// about one aux variable a row; A and B hold ~2 terms a row (a bit's
	// b·(b − 1), a packing row's 255 bits), C few (bits have none)
	b.Grow(s.Constraints, [3]int{2 * s.Constraints, 2 * s.Constraints, s.Constraints / 4}, s.Constraints)
	one := fr.One()
	start := seedElement(s.Seed, 0)
	in := b.Input(start)
	// The chain's end is public; its value is known only after the chain, so
	// allocate it now with a placeholder and bind it at the end.
	var end fr.Element
	out := b.Input(end)

	lc := func(terms ...r1cs.Term) r1cs.LC { return r1cs.LC(terms) }
	t1 := func(v r1cs.Variable) r1cs.Term { return r1cs.Term{Var: v, Coeff: one} }

	x := in
	chain := make([]r1cs.Variable, 0, rounds)
	for i := 0; i < rounds; i++ {
		k := seedElement(0, uint64(i)+1) // round constants: part of the circuit, not the witness
		var tv, t2, t4, t5 fr.Element
		xv := b.Value(x)
		tv.Add(&xv, &k)
		t2.Square(&tv)
		t4.Square(&t2)
		t5.Mul(&t4, &tv)
		sum := lc(t1(x), r1cs.Term{Var: b.One(), Coeff: k}) // x + k
		v2 := b.Aux(t2)
		b.Enforce(sum, sum, lc(t1(v2)))
		v4 := b.Aux(t4)
		b.Enforce(lc(t1(v2)), lc(t1(v2)), lc(t1(v4)))
		v5 := b.Aux(t5)
		b.Enforce(lc(t1(v4)), sum, lc(t1(v5)))
		x = v5
		chain = append(chain, v5)
	}
	end = b.Value(x)
	b.SetValue(out, end)
	b.Enforce(lc(t1(x)), lc(t1(b.One())), lc(t1(out)))

	var minusOne fr.Element
	minusOne.Neg(&one)
	bit := func(v fr.Element) r1cs.Variable {
		bv := b.Aux(v)
		// b·(b − 1) = 0
		b.Enforce(lc(t1(bv)), lc(t1(bv), r1cs.Term{Var: b.One(), Coeff: minusOne}), nil)
		return bv
	}
	for d := 0; d < decomps; d++ {
		src := chain[d%len(chain)]
		val := b.Value(src)
		bigv := val.Bits() // regular form, little-endian words
		var pack r1cs.LC
		var pow fr.Element
		pow.SetOne()
		for j := 0; j < 255; j++ {
			var bitv fr.Element
			bitv.SetUint64(bigv[j/64] >> (j % 64) & 1)
			pack = append(pack, r1cs.Term{Var: bit(bitv), Coeff: pow})
			pow.Double(&pow)
		}
		b.Enforce(pack, lc(t1(b.One())), lc(t1(src)))
	}
	for f := 0; f < fill; f++ {
		var v fr.Element
		r := seedElement(s.Seed, uint64(f))
		v.SetUint64(r.Bits()[0] & 1)
		bit(v)
	}
	cs, w := b.Build()
	return cs, w, nil
}
