// Package r1cstest builds hostile circuit files for the tests of the
// readers and of the command line.
package r1cstest

import (
	"encoding/binary"
	"hash/crc32"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// HugeCount is 2^31 - 1, the wire count of the hostile headers.
const HugeCount = 1<<31 - 1

// HugeCircomHeader is a 264-byte circom .r1cs file whose header claims
// 2^31 - 1 wires and no constraints, with a 152-byte wire map (19 wires'
// worth) to reach the size of the file that made `cuzk setup` die of
// memory.
func HugeCircomHeader() []byte {
	hdr := binary.LittleEndian.AppendUint32(nil, fr.Bytes)
	le := fr.Modulus().FillBytes(make([]byte, fr.Bytes))
	for i := len(le) - 1; i >= 0; i-- {
		hdr = append(hdr, le[i])
	}
	for _, v := range []uint32{HugeCount, 0, 0, 0} { // wires, outputs, public, private
		hdr = binary.LittleEndian.AppendUint32(hdr, v)
	}
	hdr = binary.LittleEndian.AppendUint64(hdr, HugeCount) // labels
	hdr = binary.LittleEndian.AppendUint32(hdr, 0)         // constraints
	out := []byte("r1cs")
	out = binary.LittleEndian.AppendUint32(out, 1)
	out = binary.LittleEndian.AppendUint32(out, 3)
	for typ, body := range [][]byte{hdr, nil, make([]byte, 152)} {
		out = binary.LittleEndian.AppendUint32(out, uint32(typ+1))
		out = binary.LittleEndian.AppendUint64(out, uint64(len(body)))
		out = append(out, body...)
	}
	return out
}

// HugeCuzkHeader is a well-formed file in cuzk's format (right size, right
// checksum, the coefficient table 1, -1, no terms) that declares
// 2^31 - 1 variables and, with constraints > 0, as many empty rows.
func HugeCuzkHeader(aux, constraints uint64) []byte {
	out := []byte("CUZKR1CS")
	out = binary.LittleEndian.AppendUint32(out, 1)
	out = binary.LittleEndian.AppendUint32(out, 0)
	for _, v := range []uint64{1, aux, constraints, 2, 0, 0, 0} {
		out = binary.LittleEndian.AppendUint64(out, v)
	}
	var one, minusOne fr.Element
	one.SetOne()
	minusOne.Neg(&one)
	for _, c := range []fr.Element{one, minusOne} {
		var b [fr.Bytes]byte
		fr.LittleEndian.PutElement(&b, c)
		out = append(out, b[:]...)
	}
	out = append(out, make([]byte, 3*8*(constraints+1))...) // row pointers, all 0
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, crc32.MakeTable(crc32.Castagnoli)))
}
