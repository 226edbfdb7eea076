package r1cs

import "hash/crc32"

// CRCOf exposes the file checksum to the external tests.
func CRCOf(b []byte) uint32 { return crc32.Checksum(b, crcTable) }

// SetCircomChunk sets the constraints a goroutine decodes at a time and
// returns a function that restores it.
func SetCircomChunk(n int) (restore func()) {
	old := circomChunk
	circomChunk = n
	return func() { circomChunk = old }
}
