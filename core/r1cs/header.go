package r1cs

import (
	"encoding/binary"
	"fmt"
	"math/big"
)

// The headers of the three circuit and witness formats, read without the
// body: what a file declares (its counts, its field), for telling files
// apart and describing them (package filekind). Reading a header checks
// the container (magic, version, section table against the file's size)
// but no constraint, coefficient or value.

// CircomHeader is the header section of a circom .r1cs file.
type CircomHeader struct {
	Version uint32
	// Prime is the field's modulus (circom --prime picks it).
	Prime                                             *big.Int
	Wires, PublicOutputs, PublicInputs, PrivateInputs uint32
	Labels                                            uint64
	Constraints                                       uint32
}

// WitnessHeader is the header section of a circom .wtns file.
type WitnessHeader struct {
	Version uint32
	Prime   *big.Int
	Values  uint32
}

// Header is the header of a cuzk circuit file.
type Header struct {
	Version                                      uint32
	NumInputs, NumAux, NumConstraints, NumCoeffs uint64
	NNZ                                          [3]uint64 // A, B, C
}

// readPrime reads the (n8, prime) pair that starts a circom header section.
func readPrime(kind string, b []byte) (n8 int, p *big.Int, err error) {
	if len(b) < 4 {
		return 0, nil, fmt.Errorf("r1cs: circom %s: truncated header", kind)
	}
	n8 = int(binary.LittleEndian.Uint32(b))
	if n8 <= 0 || n8 > 64 || len(b) < 4+n8 {
		return 0, nil, fmt.Errorf("r1cs: circom %s: bad field size %d", kind, n8)
	}
	le := b[4 : 4+n8]
	be := make([]byte, n8)
	for i := range le {
		be[n8-1-i] = le[i]
	}
	return n8, new(big.Int).SetBytes(be), nil
}

// primeHeader parses a circom binary file of kind (format versions up to
// maxVersion) and the (n8, prime) pair its header section starts with.
func primeHeader(data []byte, kind string, maxVersion uint32) (f *binFile, hdr []byte, n8 int, p *big.Int, err error) {
	if f, err = parseBinFile(data, kind, maxVersion); err != nil {
		return nil, nil, 0, nil, err
	}
	if hdr, err = f.section(kind, 1); err != nil {
		return nil, nil, 0, nil, err
	}
	n8, p, err = readPrime(kind, hdr)
	return f, hdr, n8, p, err
}

// DecodeCircomHeader reads the header of a circom .r1cs file, whatever its
// field.
func DecodeCircomHeader(data []byte) (CircomHeader, error) {
	f, hdr, n8, p, err := primeHeader(data, "r1cs", 1)
	if err != nil {
		return CircomHeader{}, err
	}
	if len(hdr) != 4+n8+4*4+8+4 {
		return CircomHeader{}, fmt.Errorf("r1cs: circom r1cs: header section is %d bytes, want %d", len(hdr), 4+n8+4*4+8+4)
	}
	h := hdr[4+n8:]
	return CircomHeader{
		Version:       f.version,
		Prime:         p,
		Wires:         binary.LittleEndian.Uint32(h[0:]),
		PublicOutputs: binary.LittleEndian.Uint32(h[4:]),
		PublicInputs:  binary.LittleEndian.Uint32(h[8:]),
		PrivateInputs: binary.LittleEndian.Uint32(h[12:]),
		Labels:        binary.LittleEndian.Uint64(h[16:]),
		Constraints:   binary.LittleEndian.Uint32(h[24:]),
	}, nil
}

// DecodeCircomWitnessHeader reads the header of a circom .wtns file,
// whatever its field, and checks that the values section holds as many
// values as the header says.
func DecodeCircomWitnessHeader(data []byte) (WitnessHeader, error) {
	const kind = "wtns"
	f, hdr, n8, p, err := primeHeader(data, kind, 2)
	if err != nil {
		return WitnessHeader{}, err
	}
	if len(hdr) != 4+n8+4 {
		return WitnessHeader{}, fmt.Errorf("r1cs: circom wtns: header section is %d bytes, want %d", len(hdr), 4+n8+4)
	}
	n := binary.LittleEndian.Uint32(hdr[4+n8:])
	body, err := f.section(kind, 2)
	if err != nil {
		return WitnessHeader{}, err
	}
	if uint64(len(body)) != uint64(n)*uint64(n8) {
		return WitnessHeader{}, fmt.Errorf("r1cs: circom wtns: values section is %d bytes, want %d for %d values", len(body), uint64(n)*uint64(n8), n)
	}
	return WitnessHeader{Version: f.version, Prime: p, Values: n}, nil
}

// DecodeHeader reads the header of a cuzk circuit file and checks the
// file's size against it (not its checksum: that reads the whole file).
func DecodeHeader(data []byte) (Header, error) {
	if len(data) < headerSize+4 {
		return Header{}, formatErr("%d bytes is shorter than the header", len(data))
	}
	if string(data[:8]) != magic {
		return Header{}, formatErr("bad magic %q (not a cuzk circuit file)", data[:8])
	}
	h := Header{Version: binary.LittleEndian.Uint32(data[8:])}
	if h.Version != version {
		return h, formatErr("version %d, this build reads version %d", h.Version, version)
	}
	var v [7]uint64
	for i := range v {
		v[i] = binary.LittleEndian.Uint64(data[16+8*i:])
	}
	const limit = 1 << 40 // far beyond any circuit; keeps the size sum from overflowing
	for i, x := range v {
		if x >= limit {
			return h, formatErr("header field %d is %d, beyond any real circuit", i, x)
		}
	}
	h.NumInputs, h.NumAux, h.NumConstraints, h.NumCoeffs = v[0], v[1], v[2], v[3]
	copy(h.NNZ[:], v[4:])
	want := uint64(headerSize) + 32*h.NumCoeffs + 4
	for _, z := range h.NNZ {
		want += 8*(h.NumConstraints+1) + 8*z
	}
	if uint64(len(data)) != want {
		return h, formatErr("file is %d bytes, header says %d (truncated or corrupt)", len(data), want)
	}
	return h, nil
}
