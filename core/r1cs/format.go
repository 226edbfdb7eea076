package r1cs

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/internal/fileio"
)

// On-disk format, version 1 (all integers little-endian):
//
//	magic "CUZKR1CS", version u32, reserved u32 (0)
//	numInputs, numAux, numConstraints, numCoeffs, nnzA, nnzB, nnzC: u64
//	coefficients: numCoeffs × 32 bytes, canonical little-endian
//	for A, B, C: row pointers (numConstraints+1) × u64, columns nnz × u32,
//	             coefficient indices nnz × u32
//	CRC-32C of everything before it: u32
const (
	magic      = "CUZKR1CS"
	version    = 1
	headerSize = 8 + 4 + 4 + 7*8
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// ErrFormat is wrapped by every error about a malformed circuit file.
var ErrFormat = errors.New("malformed circuit file")

// WriteTo writes the system in the versioned binary format.
func (r *R1CS) WriteTo(w io.Writer) (int64, error) {
	crc := crc32.New(crcTable)
	bw := bufio.NewWriterSize(io.MultiWriter(w, crc), 1<<20)
	var n int64
	var buf [32]byte
	put := func(b []byte) {
		m, _ := bw.Write(b) // a write error is sticky in bufio and returned by Flush
		n += int64(m)
	}
	u32 := func(v uint32) { binary.LittleEndian.PutUint32(buf[:4], v); put(buf[:4]) }
	u64 := func(v uint64) { binary.LittleEndian.PutUint64(buf[:8], v); put(buf[:8]) }

	put([]byte(magic))
	u32(version)
	u32(0)
	for _, v := range []int{r.NumInputs, r.NumAux, r.NumConstraints, len(r.Coeffs), r.A.NNZ(), r.B.NNZ(), r.C.NNZ()} {
		u64(uint64(v))
	}
	for i := range r.Coeffs {
		fr.LittleEndian.PutElement(&buf, r.Coeffs[i])
		put(buf[:32])
	}
	for _, m := range []*Matrix{&r.A, &r.B, &r.C} {
		for _, v := range m.RowPtr {
			u64(v)
		}
		for _, v := range m.Col {
			u32(v)
		}
		for _, v := range m.Val {
			u32(v)
		}
	}
	if err := bw.Flush(); err != nil {
		return n, err
	}
	binary.LittleEndian.PutUint32(buf[:4], crc.Sum32())
	m, err := w.Write(buf[:4])
	return n + int64(m), err
}

// WriteFile writes the system to path atomically (temporary file, rename).
func (r *R1CS) WriteFile(path string) error {
	err := fileio.WriteAtomic(path, func(w io.Writer) error { _, err := r.WriteTo(w); return err })
	if err != nil {
		return fmt.Errorf("r1cs: %w", err)
	}
	return nil
}

// ReadFile reads a system written by WriteFile.
func ReadFile(path string) (*R1CS, error) {
	var r *R1CS
	err := fileio.Decode("r1cs", path, func(data []byte) (err error) {
		r, err = Decode(data)
		return err
	})
	return r, err
}

// justifyVars checks that a file of size bytes can declare vars variables:
// at most one per byte. A variable no term references takes no byte of
// either format, yet the density bitmaps, the witness and every per-variable
// query of the setup and the prover are sized by the declared count (a
// 264-byte header claiming 2^31 - 1 wires asked the setup for 64 GiB). A
// real file passes easily: each referenced variable costs a term (8 bytes
// in cuzk's format, 36 in circom's), and circom's wire-to-label map 8 bytes
// per wire.
func justifyVars(vars uint64, size int) error {
	if vars > uint64(size) {
		return fmt.Errorf("%d variables declared in a %d-byte file (at most one per byte: truncated or corrupt)", vars, size)
	}
	return nil
}

func formatErr(f string, args ...any) error {
	return fmt.Errorf("r1cs: %w: %s", ErrFormat, fmt.Sprintf(f, args...))
}

// Decode parses the binary format, checking the header, the size, the
// checksum, every coefficient and every index.
func Decode(data []byte) (*R1CS, error) {
	h, err := DecodeHeader(data)
	if err != nil {
		return nil, err
	}
	ni, na, nc, ncoef, nnz := h.NumInputs, h.NumAux, h.NumConstraints, h.NumCoeffs, h.NNZ
	if err := justifyVars(ni+na, len(data)); err != nil {
		return nil, formatErr("%v", err)
	}
	body := data[:len(data)-4]
	if got, sum := crc32.Checksum(body, crcTable), binary.LittleEndian.Uint32(data[len(data)-4:]); got != sum {
		return nil, formatErr("checksum mismatch (stored %08x, computed %08x)", sum, got)
	}
	r := &R1CS{NumInputs: int(ni), NumAux: int(na), NumConstraints: int(nc), Coeffs: make([]fr.Element, ncoef)}
	off := headerSize
	for i := range r.Coeffs {
		var err error
		if r.Coeffs[i], err = fr.LittleEndian.Element((*[32]byte)(data[off : off+32])); err != nil {
			return nil, formatErr("coefficient %d is not a canonical field element", i)
		}
		off += 32
	}
	for i, m := range []*Matrix{&r.A, &r.B, &r.C} {
		m.RowPtr = make([]uint64, nc+1)
		for k := range m.RowPtr {
			m.RowPtr[k] = binary.LittleEndian.Uint64(data[off:])
			off += 8
		}
		m.Col = make([]uint32, nnz[i])
		m.Val = make([]uint32, nnz[i])
		for _, dst := range [][]uint32{m.Col, m.Val} {
			for t := range dst {
				dst[t] = binary.LittleEndian.Uint32(data[off:])
				off += 4
			}
		}
	}
	if err := r.validate(); err != nil {
		return nil, formatErr("%v", err)
	}
	r.computeDensity()
	return r, nil
}

// Open reads a circuit in cuzk's format or circom's .r1cs, told apart by
// their magic.
func Open(path string) (*R1CS, error) {
	var circom bool
	err := fileio.Decode("r1cs", path, func(data []byte) error {
		circom = len(data) >= 4 && string(data[:4]) == "r1cs"
		return nil
	})
	if err != nil {
		return nil, err
	}
	if circom {
		return ReadCircomR1CS(path)
	}
	return ReadFile(path)
}
