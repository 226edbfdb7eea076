package r1cs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/internal/fileio"
	"github.com/cuzk/cuzk/core/internal/par"
)

// ErrWrongPrime is wrapped by the error for a circom file over another field.
var ErrWrongPrime = errors.New("not the BLS12-381 scalar field (compile with circom --prime bls12381)")

// binFile is an iden3 binary container: a 4-byte type, a version, sections.
type binFile struct {
	version  uint32
	sections map[uint32][]byte
}

func parseBinFile(data []byte, kind string, maxVersion uint32) (*binFile, error) {
	if len(data) < 12 || string(data[:4]) != kind {
		return nil, fmt.Errorf("r1cs: not a circom %s file", kind)
	}
	v := binary.LittleEndian.Uint32(data[4:])
	if v < 1 || v > maxVersion {
		return nil, fmt.Errorf("r1cs: circom %s version %d not supported (1 to %d)", kind, v, maxVersion)
	}
	n := binary.LittleEndian.Uint32(data[8:])
	f := &binFile{version: v, sections: map[uint32][]byte{}}
	off := uint64(12)
	for i := uint32(0); i < n; i++ {
		if uint64(len(data))-off < 12 {
			return nil, fmt.Errorf("r1cs: circom %s: truncated section header %d", kind, i)
		}
		typ := binary.LittleEndian.Uint32(data[off:])
		size := binary.LittleEndian.Uint64(data[off+4:])
		off += 12
		if uint64(len(data))-off < size {
			return nil, fmt.Errorf("r1cs: circom %s: section %d (type %d) truncated: %d bytes, %d left", kind, i, typ, size, uint64(len(data))-off)
		}
		if _, dup := f.sections[typ]; dup {
			return nil, fmt.Errorf("r1cs: circom %s: duplicate section type %d", kind, typ)
		}
		f.sections[typ] = data[off : off+size]
		off += size
	}
	return f, nil
}

func (f *binFile) section(kind string, typ uint32) ([]byte, error) {
	s, ok := f.sections[typ]
	if !ok {
		return nil, fmt.Errorf("r1cs: circom %s: missing section %d", kind, typ)
	}
	return s, nil
}

// checkPrime checks a (n8, prime) pair against the BLS12-381 scalar field.
func checkPrime(kind string, b []byte) (int, error) {
	n8, p, err := readPrime(kind, b)
	if err != nil {
		return 0, err
	}
	if p.Cmp(fr.Modulus()) != 0 || n8 != fr.Bytes {
		return 0, fmt.Errorf("r1cs: circom %s: prime %s: %w", kind, p, ErrWrongPrime)
	}
	return n8, nil
}

// readElement reads a canonical little-endian field element.
func readElement(b []byte) (fr.Element, error) {
	return fr.LittleEndian.Element((*[fr.Bytes]byte)(b[:fr.Bytes]))
}

// ReadCircomR1CS reads a circom .r1cs file. circom numbers wires
// [ONE, outputs, public inputs, private inputs, internal]; the first
// 1 + nOutputs + nPublicInputs wires are the Groth16 inputs, so wire ids are
// used as variable indices unchanged.
func ReadCircomR1CS(path string) (*R1CS, error) {
	var r *R1CS
	err := fileio.Decode("r1cs", path, func(data []byte) (err error) {
		r, err = DecodeCircomR1CS(data)
		return err
	})
	return r, err
}

// DecodeCircomR1CS parses the bytes of a circom .r1cs file.
func DecodeCircomR1CS(data []byte) (*R1CS, error) {
	const kind = "r1cs"
	f, err := parseBinFile(data, kind, 1)
	if err != nil {
		return nil, err
	}
	hdr, err := f.section(kind, 1)
	if err != nil {
		return nil, err
	}
	n8, err := checkPrime(kind, hdr)
	if err != nil {
		return nil, err
	}
	if len(hdr) != 4+n8+4*4+8+4 {
		return nil, fmt.Errorf("r1cs: circom r1cs: header section is %d bytes, want %d", len(hdr), 4+n8+4*4+8+4)
	}
	h := hdr[4+n8:]
	nWires := int(binary.LittleEndian.Uint32(h[0:]))
	nOut := int(binary.LittleEndian.Uint32(h[4:]))
	nPubIn := int(binary.LittleEndian.Uint32(h[8:]))
	nConstraints := int(binary.LittleEndian.Uint32(h[24:]))
	nInputs := 1 + nOut + nPubIn
	if nInputs > nWires {
		return nil, fmt.Errorf("r1cs: circom r1cs: %d public wires but only %d wires", nInputs, nWires)
	}
	if nWires > maxVars {
		return nil, fmt.Errorf("r1cs: circom r1cs: %d wires exceed the %d this build accepts", nWires, maxVars)
	}
	if err := justifyVars(uint64(nWires), len(data)); err != nil {
		return nil, fmt.Errorf("r1cs: circom r1cs: %w", err)
	}
	body, err := f.section(kind, 2)
	if err != nil {
		return nil, err
	}
	// Each constraint holds three term counts (12 bytes) at least.
	if nConstraints > len(body)/12 {
		return nil, fmt.Errorf("r1cs: circom r1cs: %d constraints cannot fit in a %d-byte constraint section", nConstraints, len(body))
	}

	return decodeCircomConstraints(body, circomShape{nConstraints: nConstraints, nInputs: nInputs, nWires: nWires, n8: n8})
}

// ReadCircomWitness reads a circom .wtns file and splits it into inputs and
// aux for r, checking its length and the constant ONE.
func (r *R1CS) ReadCircomWitness(path string) (*Witness, error) {
	var w *Witness
	err := fileio.Decode("r1cs", path, func(data []byte) (err error) {
		w, err = r.DecodeCircomWitness(data)
		return err
	})
	return w, err
}

// DecodeCircomWitness parses the bytes of a circom .wtns file for r.
func (r *R1CS) DecodeCircomWitness(data []byte) (*Witness, error) {
	const kind = "wtns"
	f, err := parseBinFile(data, kind, 2)
	if err != nil {
		return nil, err
	}
	hdr, err := f.section(kind, 1)
	if err != nil {
		return nil, err
	}
	n8, err := checkPrime(kind, hdr)
	if err != nil {
		return nil, err
	}
	if len(hdr) != 4+n8+4 {
		return nil, fmt.Errorf("r1cs: circom wtns: header section is %d bytes, want %d", len(hdr), 4+n8+4)
	}
	n := int(binary.LittleEndian.Uint32(hdr[4+n8:]))
	body, err := f.section(kind, 2)
	if err != nil {
		return nil, err
	}
	if len(body) != n*n8 {
		return nil, fmt.Errorf("r1cs: circom wtns: values section is %d bytes, want %d for %d values", len(body), n*n8, n)
	}
	if n != r.NumVars() {
		return nil, fmt.Errorf("r1cs: circom wtns: %d values, circuit has %d variables", n, r.NumVars())
	}
	vals := make([]fr.Element, n)
	// in parallel ranges of 2^16 values or more; the first bad value named
	tasks := max(1, min(runtime.GOMAXPROCS(0), n>>16))
	bad := make([]int, tasks)
	guarded(body, tasks, func(t int) {
		from, to := t*n/tasks, (t+1)*n/tasks
		bad[t] = -1
		for i := from; i < to; i++ {
			var err error
			if vals[i], err = readElement(body[i*n8:]); err != nil {
				bad[t] = i
				return
			}
		}
	})
	for _, i := range bad {
		if i >= 0 {
			return nil, fmt.Errorf("r1cs: circom wtns: value %d is not a canonical field element", i)
		}
	}
	w := &Witness{Inputs: vals[:r.NumInputs:r.NumInputs], Aux: vals[r.NumInputs:]}
	if err := r.CheckWitness(w); err != nil {
		return nil, err
	}
	return w, nil
}

// circomPrime writes the (n8, prime) pair of a header section.
func circomPrime(buf []byte) []byte {
	buf = binary.LittleEndian.AppendUint32(buf, fr.Bytes)
	be := fr.Modulus().FillBytes(make([]byte, fr.Bytes))
	for i := len(be) - 1; i >= 0; i-- {
		buf = append(buf, be[i])
	}
	return buf
}

func binHeader(kind string, version, sections uint32) []byte {
	b := []byte(kind)
	b = binary.LittleEndian.AppendUint32(b, version)
	return binary.LittleEndian.AppendUint32(b, sections)
}

func appendSection(buf []byte, typ uint32, body []byte) []byte {
	buf = binary.LittleEndian.AppendUint32(buf, typ)
	buf = binary.LittleEndian.AppendUint64(buf, uint64(len(body)))
	return append(buf, body...)
}

// EncodeCircomWitness returns w as a circom .wtns file (version 2), values
// in canonical little-endian form, inputs first.
func EncodeCircomWitness(w *Witness) []byte {
	hdr := circomPrime(nil)
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(w.Inputs)+len(w.Aux)))
	body := make([]byte, 0, fr.Bytes*(len(w.Inputs)+len(w.Aux)))
	var b [fr.Bytes]byte
	for _, vs := range [][]fr.Element{w.Inputs, w.Aux} {
		for i := range vs {
			fr.LittleEndian.PutElement(&b, vs[i])
			body = append(body, b[:]...)
		}
	}
	out := binHeader("wtns", 2, 2)
	out = appendSection(out, 1, hdr)
	return appendSection(out, 2, body)
}

// EncodeCircomR1CS returns r as a circom .r1cs file (version 1) whose public
// wires are all outputs; a tool that reads circom files sees the same system.
func (r *R1CS) EncodeCircomR1CS() []byte {
	hdr := circomPrime(nil)
	for _, v := range []uint32{uint32(r.NumVars()), uint32(r.NumInputs - 1), 0, 0} {
		hdr = binary.LittleEndian.AppendUint32(hdr, v)
	}
	hdr = binary.LittleEndian.AppendUint64(hdr, uint64(r.NumVars()))
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(r.NumConstraints))
	mats := [3]*Matrix{&r.A, &r.B, &r.C}
	const term = 4 + fr.Bytes
	// constraint k starts at at(k): three counts a constraint before it
	// and the terms of the rows before it
	at := func(k int) int {
		return 12*k + term*int(r.A.RowPtr[k]+r.B.RowPtr[k]+r.C.RowPtr[k])
	}
	bodyLen := at(r.NumConstraints)
	labelsLen := 8 * r.NumVars()
	// the whole file in one buffer of its final size, the constraints
	// written in place by ranges in parallel
	out := make([]byte, 0, 12+3*12+len(hdr)+bodyLen+labelsLen)
	out = append(out, binHeader("r1cs", 1, 3)...)
	out = appendSection(out, 1, hdr)
	out = binary.LittleEndian.AppendUint32(out, 2)
	out = binary.LittleEndian.AppendUint64(out, uint64(bodyLen))
	body := out[len(out) : len(out)+bodyLen]
	out = out[:len(out)+bodyLen]
	tasks := max(1, min(runtime.GOMAXPROCS(0), r.NumConstraints>>14))
	par.Ranges(tasks, r.NumConstraints, func(_, from, to int) {
		off := at(from)
		for k := from; k < to; k++ {
			for _, m := range mats {
				lo, hi := m.RowPtr[k], m.RowPtr[k+1]
				binary.LittleEndian.PutUint32(body[off:], uint32(hi-lo))
				off += 4
				for j := lo; j < hi; j++ {
					binary.LittleEndian.PutUint32(body[off:], m.Col[j])
					fr.LittleEndian.PutElement((*[fr.Bytes]byte)(body[off+4:]), r.Coeffs[m.Val[j]])
					off += term
				}
			}
		}
	})
	out = binary.LittleEndian.AppendUint32(out, 3)
	out = binary.LittleEndian.AppendUint64(out, uint64(labelsLen))
	for i := 0; i < r.NumVars(); i++ {
		out = binary.LittleEndian.AppendUint64(out, uint64(i))
	}
	return out
}
