package r1cs_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/internal/fileio"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
)

// rawTerm is a term as a circom file holds it: a wire and a coefficient.
type rawTerm struct {
	wire  uint32
	coeff fr.Element
}

// rawCircuit is a constraint system as raw combinations (unsorted,
// duplicate wires and zero coefficients allowed), wires numbered
// [ONE, public inputs, aux].
type rawCircuit struct {
	nInputs, nWires int
	lcs             [][3][]rawTerm
}

// randomRaw draws combinations that take every path of the reader's
// merging and interning: sorted or not, repeated wires (some cancelling),
// zero coefficients, and coefficients from a small shared set (interned
// once across chunks) or fresh.
func randomRaw(rng *rand.Rand, nConstraints int) rawCircuit {
	rc := rawCircuit{nInputs: 1 + rng.IntN(4), nWires: 0}
	rc.nWires = rc.nInputs + 1 + rng.IntN(40)
	shared := make([]fr.Element, 6)
	for i := range shared {
		shared[i].SetUint64(uint64(i + 2))
	}
	shared[0].SetOne()
	shared[1].Neg(&shared[0])
	for range nConstraints {
		var c [3][]rawTerm
		for i := range c {
			for range rng.IntN(6) {
				t := rawTerm{wire: uint32(rng.IntN(rc.nWires))}
				switch rng.IntN(8) {
				case 0:
					t.coeff.SetZero()
				case 1, 2:
					t.coeff.SetRandom()
				default:
					t.coeff = shared[rng.IntN(len(shared))]
				}
				c[i] = append(c[i], t)
				if rng.IntN(10) == 0 { // the same wire again, cancelling
					var neg fr.Element
					neg.Neg(&t.coeff)
					c[i] = append(c[i], rawTerm{wire: t.wire, coeff: neg})
				}
			}
		}
		rc.lcs = append(rc.lcs, c)
	}
	return rc
}

// file lays rc out as a circom .r1cs by hand (the format's description:
// header section, constraints section of count, then wire u32 and
// coefficient 32 bytes little-endian canonical for each term).
func (rc rawCircuit) file(trailing int) (data []byte, constraintsAt int) {
	hdr := primeField(fr.Modulus())
	for _, v := range []uint32{uint32(rc.nWires), uint32(rc.nInputs - 1), 0, 0} {
		hdr = binary.LittleEndian.AppendUint32(hdr, v)
	}
	hdr = binary.LittleEndian.AppendUint64(hdr, uint64(rc.nWires))
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(rc.lcs)))
	var body []byte
	for _, c := range rc.lcs {
		for _, lc := range c {
			body = binary.LittleEndian.AppendUint32(body, uint32(len(lc)))
			for _, t := range lc {
				body = binary.LittleEndian.AppendUint32(body, t.wire)
				var b [fr.Bytes]byte
				fr.LittleEndian.PutElement(&b, t.coeff)
				body = append(body, b[:]...)
			}
		}
	}
	body = append(body, make([]byte, trailing)...)
	return circomFile("r1cs", 1, hdr, body), 12 + 12 + len(hdr) + 12
}

// built is rc compiled by Builder, the reference for the reader.
func (rc rawCircuit) built() *r1cs.R1CS {
	b := r1cs.NewBuilder()
	vars := []r1cs.Variable{b.One()}
	for w := 1; w < rc.nWires; w++ {
		if w < rc.nInputs {
			vars = append(vars, b.Input(fr.Element{}))
		} else {
			vars = append(vars, b.Aux(fr.Element{}))
		}
	}
	for _, c := range rc.lcs {
		var lcs [3]r1cs.LC
		for i, lc := range c {
			for _, t := range lc {
				lcs[i] = append(lcs[i], r1cs.Term{Var: vars[t.wire], Coeff: t.coeff})
			}
		}
		b.Enforce(lcs[0], lcs[1], lcs[2])
	}
	cs, _ := b.Build()
	return cs
}

func TestCircomDecodeMatchesBuilder(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{0, 1, 5, 64, 300} {
		rc := randomRaw(rng, n)
		want := rc.built()
		data, _ := rc.file(0)
		for _, chunk := range []int{1, 3, 7, 1 << 14} {
			restore := r1cs.SetCircomChunk(chunk)
			got, err := r1cs.DecodeCircomR1CS(data)
			restore()
			require.NoError(t, err, "%d constraints, chunks of %d", n, chunk)
			require.Equal(t, want, got, "%d constraints, chunks of %d", n, chunk)
		}
	}
}

// TestCircomDecodeReportsFirstFault: with faults in several chunks, the
// one reported is the first in the file, as a term-by-term reader finds.
func TestCircomDecodeReportsFirstFault(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	rc := randomRaw(rng, 40)
	for k := range rc.lcs { // every combination holds a term, so faults can be planted anywhere
		for i := range rc.lcs[k] {
			if len(rc.lcs[k][i]) == 0 {
				rc.lcs[k][i] = []rawTerm{{wire: 0, coeff: fr.One()}}
			}
		}
	}
	good, at := rc.file(0)
	trailing, _ := rc.file(5)
	// termAt is the offset of constraint k's combination i's first term's wire
	termAt := func(k, i int) int {
		off := at
		for kk := 0; kk <= k; kk++ {
			for ii := 0; ii < 3; ii++ {
				if kk == k && ii == i {
					return off + 4
				}
				off += 4 + 36*len(rc.lcs[kk][ii])
			}
		}
		panic("unreachable")
	}
	countAt := func(k, i int) int { return termAt(k, i) - 4 }
	badWire := func(b []byte, k, i int) { binary.LittleEndian.PutUint32(b[termAt(k, i):], 1<<20) }
	badCoeff := func(b []byte, k, i int) {
		for j := 0; j < 32; j++ {
			b[termAt(k, i)+4+j] = 0xff
		}
	}
	overrun := func(b []byte, k, i int) { binary.LittleEndian.PutUint32(b[countAt(k, i):], 1<<30) }
	for _, c := range []struct {
		name, want string
		plant      func([]byte)
		trailing   bool
	}{
		{"two content faults, the later chunk's first", "constraint 9 (c): coefficient not a canonical",
			func(b []byte) { badWire(b, 30, 0); badCoeff(b, 9, 2) }, false},
		{"wire before coefficient in one constraint", "constraint 12 (b): wire 1048576 out of range",
			func(b []byte) { badCoeff(b, 12, 2); badWire(b, 12, 1); badWire(b, 13, 0) }, false},
		{"content fault before an overrun", "constraint 20 (a): wire 1048576 out of range",
			func(b []byte) { badWire(b, 20, 0); overrun(b, 20, 2) }, false},
		{"overrun before a content fault in the same combination's constraint", "constraint 20: 1073741824 terms overrun",
			func(b []byte) { overrun(b, 20, 1); badWire(b, 20, 2) }, false},
		{"content fault before trailing bytes", "constraint 39 (c): wire",
			func(b []byte) { badWire(b, 39, 2) }, true},
		{"trailing bytes", "5 bytes left after 40 constraints", func([]byte) {}, true},
	} {
		data := append([]byte(nil), good...)
		if c.trailing {
			data = append([]byte(nil), trailing...)
		}
		c.plant(data)
		for _, chunk := range []int{1, 4, 1 << 14} {
			restore := r1cs.SetCircomChunk(chunk)
			_, err := r1cs.DecodeCircomR1CS(data)
			restore()
			require.ErrorContains(t, err, c.want, fmt.Sprintf("%s, chunks of %d", c.name, chunk))
		}
	}
}

// TestCircomWitnessNamesFirstBadValue: values are read in parallel
// ranges; of several non-canonical values the first is named.
func TestCircomWitnessNamesFirstBadValue(t *testing.T) {
	cs, w, err := synthetic.Generate(synthetic.Spec{Constraints: 1 << 17, DenseFraction: 0.03, Seed: 2})
	require.NoError(t, err)
	good := r1cs.EncodeCircomWitness(w)
	back, err := cs.DecodeCircomWitness(good)
	require.NoError(t, err)
	require.Equal(t, w, back)
	values := len(good) - 32*cs.NumVars() // the values section's first byte
	for _, bad := range [][]int{{100_000}, {1_000, 100_000}, {100_000, 99_999, cs.NumVars() - 1}} {
		data := append([]byte(nil), good...)
		for _, i := range bad {
			for j := 0; j < 32; j++ {
				data[values+32*i+j] = 0xff
			}
		}
		_, err := cs.DecodeCircomWitness(data)
		require.ErrorContains(t, err, fmt.Sprintf("value %d is not a canonical field element", slices.Min(bad)))
	}
}

// TestCircomEncodeMatchesHandLayout: EncodeCircomR1CS (which writes its
// constraints in parallel ranges of 2^14 or more) lays a system out as the
// format's description does, byte for byte up to its labels section:
// combinations normalized here (sorted wires, duplicates added up, zeros
// dropped, as Builder compiles them) and written by rawCircuit.file.
func TestCircomEncodeMatchesHandLayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, n := range []int{0, 7, 40_000} {
		rc := randomRaw(rng, n)
		for k := range rc.lcs {
			for i, lc := range rc.lcs[k] {
				sum := map[uint32]fr.Element{}
				for _, t := range lc {
					s := sum[t.wire]
					s.Add(&s, &t.coeff)
					sum[t.wire] = s
				}
				var out []rawTerm
				for w, c := range sum {
					if !c.IsZero() {
						out = append(out, rawTerm{wire: w, coeff: c})
					}
				}
				slices.SortFunc(out, func(x, y rawTerm) int { return int(x.wire) - int(y.wire) })
				rc.lcs[k][i] = out
			}
		}
		want, _ := rc.file(0)
		got := rc.built().EncodeCircomR1CS()
		require.Greater(t, len(got), len(want))
		require.Equal(t, want[:8], got[:8], "%d constraints: magic and version", n)
		require.Equal(t, want[12:], got[12:len(want)], "%d constraints: header and constraints sections", n)
	}
}

// TestCircomShrunkWhileDecoding truncates a circom file after the reader
// has scanned it and before its goroutines read the terms (or the
// witness's values): each goroutine reads the mapping inside its own
// guard, so the load fails with an error naming the file instead of the
// process dying of SIGBUS.
func TestCircomShrunkWhileDecoding(t *testing.T) {
	cs, w, err := synthetic.Generate(synthetic.Spec{Constraints: 1 << 17, DenseFraction: 0.03, Seed: 4})
	require.NoError(t, err)
	dir := t.TempDir()
	for name, data := range map[string][]byte{"c.r1cs": cs.EncodeCircomR1CS(), "w.wtns": r1cs.EncodeCircomWitness(w)} {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, data, 0o644))
		restore := r1cs.SetBeforeParallel(func() { require.NoError(t, os.Truncate(path, 4096)) })
		if name == "c.r1cs" {
			_, err = r1cs.ReadCircomR1CS(path)
		} else {
			_, err = cs.ReadCircomWitness(path)
		}
		restore()
		require.ErrorIs(t, err, fileio.ErrShrank, name)
		require.ErrorContains(t, err, path)
	}
}
