package r1cs

import (
	"encoding/binary"
	"fmt"

	"github.com/cuzk/cuzk/core/internal/fileio"
	"github.com/cuzk/cuzk/core/internal/par"
)

// circomChunk is the number of constraints one goroutine decodes at a time.
// A variable so that the tests can make files of many chunks small.
var circomChunk = 1 << 14

// beforeParallel, when set (tests), runs just before a circom reader's
// goroutines start reading: a test shrinks the file there.
var beforeParallel func()

// guarded runs each of n tasks inside its own fileio.Guard over data (a
// mapping's fault is a per-goroutine panic) on GOMAXPROCS goroutines, and
// passes the first fault on to the caller's Guard.
func guarded(data []byte, n int, task func(i int)) {
	if beforeParallel != nil {
		beforeParallel()
	}
	faults := make([]error, n)
	par.For(n, func(i int) {
		faults[i] = fileio.Guard(data, func() error { task(i); return nil })
	})
	for _, err := range faults {
		fileio.Reraise(err)
	}
}

// circomShape is what the constraint section's decoder knows before it
// reads a term: the sizes from the header section.
type circomShape struct {
	nConstraints, nInputs, nWires, n8 int
}

// circomFail is a decoding error at a place in the file: constraint k, its
// combination lc (0-2 for A, B, C; 3 after the last one). The earliest in
// file order is the one reported, as a reader going term by term would.
type circomFail struct {
	k, lc int
	err   error
}

func (f *circomFail) before(g *circomFail) bool {
	return g == nil || f.k < g.k || (f.k == g.k && f.lc < g.lc)
}

// decodeCircomConstraints decodes the constraint section in two passes:
// a serial scan of the term counts (the section's structure: where each
// chunk of constraints starts, and the first count that overruns it),
// then the chunks' terms in parallel (wires, coefficients, merging and
// a local coefficient table each), put together in order so that the
// system is the one Builder would compile from the same combinations:
// the same rows, columns and coefficient table.
func decodeCircomConstraints(body []byte, sh circomShape) (*R1CS, error) {
	starts, complete, fail := scanCircomConstraints(body, sh)
	// the constraints wholly inside the section, decoded in chunks
	whole := sh.nConstraints
	if fail != nil {
		whole = fail.k
	}
	nChunks := (whole + circomChunk - 1) / circomChunk
	chunks := make([]circomChunkOut, nChunks)
	guarded(body, nChunks, func(c int) {
		chunks[c].decode(body, sh, c*circomChunk, min((c+1)*circomChunk, whole), starts[c])
	})
	for c := range chunks {
		if f := chunks[c].fail; f != nil && f.before(fail) {
			fail = f
		}
	}
	if fail != nil && fail.k == whole && complete > 0 {
		// the combinations of the constraint whose count overran the
		// section come before the overrun in the file: check them first
		var out circomChunkOut
		out.init()
		if _, f := out.constraint(body, sh, whole, starts[nChunks], complete); f != nil {
			fail = f
		}
	}
	if fail != nil {
		return nil, fail.err
	}
	return assembleCircom(chunks, sh), nil
}

// scanCircomConstraints reads only the term counts. starts holds the
// offset of each chunk of circomChunk constraints wholly inside the
// section, then the offset where those constraints end; fail is the first
// structural fault, and complete how many of its constraint's
// combinations are whole before it.
func scanCircomConstraints(body []byte, sh circomShape) (starts []int, complete int, fail *circomFail) {
	off := 0
	term := 4 + sh.n8
	for k := 0; k < sh.nConstraints; k++ {
		kstart := off
		for i := range 3 {
			if len(body)-off < 4 {
				return append(starts, kstart), i, &circomFail{k, i, fmt.Errorf("r1cs: circom r1cs: constraint %d: truncated", k)}
			}
			n := int(binary.LittleEndian.Uint32(body[off:]))
			if n > (len(body)-off-4)/term {
				return append(starts, kstart), i, &circomFail{k, i, fmt.Errorf("r1cs: circom r1cs: constraint %d: %d terms overrun the section", k, n)}
			}
			off += 4 + n*term
		}
		if k%circomChunk == 0 {
			starts = append(starts, kstart)
		}
	}
	starts = append(starts, off)
	if off != len(body) {
		return starts, 0, &circomFail{sh.nConstraints, 3, fmt.Errorf("r1cs: circom r1cs: %d bytes left after %d constraints", len(body)-off, sh.nConstraints)}
	}
	return starts, 0, nil
}

// circomChunkOut is one chunk's decoded constraints: for each matrix the
// terms' row lengths, columns and coefficients as indexes into the
// chunk's own interner (first occurrences in order, 1 and −1 first).
type circomChunkOut struct {
	rowLen [3][]uint64
	col    [3][]uint32
	loc    [3][]uint32
	coeffs [3]*interner
	fail   *circomFail
	lc     LC // scratch
}

func (o *circomChunkOut) init() {
	for i := range o.coeffs {
		o.coeffs[i] = newInterner()
	}
}

// decode decodes constraints [from, to), the first at offset off.
func (o *circomChunkOut) decode(body []byte, sh circomShape, from, to, off int) {
	o.init()
	var terms [3]int // the chunk's terms a matrix, for its slices' capacity
	for k, at := from, off; k < to; k++ {
		for i := range 3 {
			n := int(binary.LittleEndian.Uint32(body[at:]))
			terms[i] += n
			at += 4 + n*(4+sh.n8)
		}
	}
	for i := range 3 {
		o.rowLen[i] = make([]uint64, 0, to-from)
		o.col[i] = make([]uint32, 0, terms[i])
		o.loc[i] = make([]uint32, 0, terms[i])
	}
	for k := from; k < to; k++ {
		if off, o.fail = o.constraint(body, sh, k, off, 3); o.fail != nil {
			return
		}
	}
}

// constraint decodes the first lcs combinations of constraint k at off
// (their counts already checked against the section) into the chunk and
// returns the offset past them.
func (o *circomChunkOut) constraint(body []byte, sh circomShape, k, off, lcs int) (int, *circomFail) {
	for i := range lcs {
		n := int(binary.LittleEndian.Uint32(body[off:]))
		off += 4
		lc := o.lc[:0]
		for range n {
			wire := binary.LittleEndian.Uint32(body[off:])
			if int(wire) >= sh.nWires {
				return off, &circomFail{k, i, fmt.Errorf("r1cs: circom r1cs: constraint %d (%c): wire %d out of range (%d wires)", k, "abc"[i], wire, sh.nWires)}
			}
			c, err := readElement(body[off+4:])
			if err != nil {
				return off, &circomFail{k, i, fmt.Errorf("r1cs: circom r1cs: constraint %d (%c): coefficient not a canonical field element", k, "abc"[i])}
			}
			off += 4 + sh.n8
			v := Variable{id: wire, input: true}
			if int(wire) >= sh.nInputs {
				v = Variable{id: wire - uint32(sh.nInputs)}
			}
			lc = append(lc, Term{Var: v, Coeff: c})
		}
		o.lc = lc
		for _, t := range merge(lc) {
			col := t.Var.id
			if !t.Var.input {
				col += uint32(sh.nInputs)
			}
			o.col[i] = append(o.col[i], col)
			o.loc[i] = append(o.loc[i], o.coeffs[i].index(&t.Coeff))
		}
		o.rowLen[i] = append(o.rowLen[i], uint64(len(o.col[i])))
	}
	return off, nil
}

// assembleCircom puts the chunks together: the coefficient table in the
// order compile makes it (A's first occurrences row by row, then B's,
// then C's), then each chunk's rows, columns and coefficient indexes
// copied into place in parallel.
func assembleCircom(chunks []circomChunkOut, sh circomShape) *R1CS {
	r := &R1CS{NumInputs: sh.nInputs, NumAux: sh.nWires - sh.nInputs, NumConstraints: sh.nConstraints}
	in := newInterner()
	remap := make([][3][]uint32, len(chunks))
	for i := range 3 {
		for c := range chunks {
			t := chunks[c].coeffs[i].table
			remap[c][i] = make([]uint32, len(t))
			for j := range t {
				remap[c][i][j] = in.index(&t[j])
			}
		}
	}
	r.Coeffs = in.table
	for i, m := range []*Matrix{&r.A, &r.B, &r.C} {
		base := make([]int, len(chunks)+1) // each chunk's first term in the matrix
		for c := range chunks {
			base[c+1] = base[c] + len(chunks[c].col[i])
		}
		m.RowPtr = make([]uint64, sh.nConstraints+1)
		m.Col = make([]uint32, base[len(chunks)])
		m.Val = make([]uint32, base[len(chunks)])
		par.For(len(chunks), func(c int) {
			o := &chunks[c]
			k0 := c * circomChunk
			for j, end := range o.rowLen[i] {
				m.RowPtr[k0+j+1] = uint64(base[c]) + end
			}
			copy(m.Col[base[c]:], o.col[i])
			val := m.Val[base[c]:base[c+1]]
			for t, l := range o.loc[i] {
				val[t] = remap[c][i][l]
			}
		})
	}
	r.computeDensity()
	return r
}
