package groth16

import (
	"encoding/binary"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// modulus is r as little-endian 64-bit limbs, the order of fr.Element's
// Montgomery limbs.
var modulus = func() (m [4]uint64) {
	b := fr.Modulus().FillBytes(make([]byte, 32))
	for i := range m {
		m[i] = binary.BigEndian.Uint64(b[32-8*(i+1):])
	}
	return
}()

// Reduced reports whether the limbs of e are below r: a host's fr_t in
// Montgomery form must be, and the arithmetic assumes it (an unreduced
// value gives a wrong proof, never an error).
func Reduced(e *fr.Element) bool {
	for i := 3; i >= 0; i-- {
		if e[i] != modulus[i] {
			return e[i] < modulus[i]
		}
	}
	return false
}

// FirstUnreduced returns the index of the first element of v not below r,
// or −1.
func FirstUnreduced(v []fr.Element) int {
	for i := range v {
		if !Reduced(&v[i]) {
			return i
		}
	}
	return -1
}
