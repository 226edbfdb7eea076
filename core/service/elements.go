package service

import (
	"encoding/binary"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/r1cs"
)

// DecodeElements reads n 32-byte elements from b: Montgomery form
// (little-endian limbs, the in-memory fr.Element) or, with canonical,
// canonical little-endian integers. Every value must be below r.
func DecodeElements(what string, b []byte, canonical bool) ([]fr.Element, error) {
	if len(b)%32 != 0 {
		return nil, errorf(InvalidArgument, "cuzk: %s: %d bytes is not a whole number of 32-byte elements", what, len(b))
	}
	out := make([]fr.Element, len(b)/32)
	for i := range out {
		chunk := (*[32]byte)(b[32*i : 32*i+32])
		if canonical {
			e, err := fr.LittleEndian.Element(chunk)
			if err != nil {
				return nil, errorf(InvalidArgument, "cuzk: %s[%d] is not below the field modulus", what, i)
			}
			out[i] = e
			continue
		}
		for k := range out[i] {
			out[i][k] = binary.LittleEndian.Uint64(chunk[8*k:])
		}
		if !groth16.Reduced(&out[i]) {
			return nil, errorf(InvalidArgument, "cuzk: %s[%d] is not below the field modulus", what, i)
		}
	}
	return out, nil
}

// EncodeElements writes v into b (32 bytes each) in the same encodings.
func EncodeElements(b []byte, v []fr.Element, canonical bool) {
	for i := range v {
		chunk := (*[32]byte)(b[32*i : 32*i+32])
		if canonical {
			fr.LittleEndian.PutElement(chunk, v[i])
			continue
		}
		for k := range v[i] {
			binary.LittleEndian.PutUint64(chunk[8*k:], v[i][k])
		}
	}
}

// ElementsAt views n elements at p without copying (the supraseal-c2 path,
// whose fr_t has fr.Element's layout).
func ElementsAt(p unsafe.Pointer, n int) []fr.Element {
	if p == nil || n == 0 {
		return nil
	}
	return unsafe.Slice((*fr.Element)(p), n)
}

// Bitmap wraps a host density bitmap (u64 words, LSB first) without
// copying, checking its length and popcount.
func Bitmap(what string, words []uint64, bitLen, popcount int) (r1cs.Bitmap, error) {
	if len(words) < (bitLen+63)/64 {
		return r1cs.Bitmap{}, errorf(InvalidArgument, "cuzk: %s density: %d words for %d bits", what, len(words), bitLen)
	}
	b := r1cs.Bitmap{Words: words[:(bitLen+63)/64], Len: bitLen}
	if bitLen%64 != 0 && b.Words[len(b.Words)-1]>>(bitLen%64) != 0 {
		// Bits past the end would be counted; mask them out of a copy.
		b.Words = append([]uint64(nil), b.Words...)
		b.Words[len(b.Words)-1] &= 1<<(bitLen%64) - 1
	}
	if got := b.Count(); got != popcount {
		return r1cs.Bitmap{}, errorf(InvalidArgument, "cuzk: %s density has %d bits set, popcount says %d", what, got, popcount)
	}
	return b, nil
}
