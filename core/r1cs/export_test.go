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

// SetBeforeParallel sets the hook a circom reader runs just before its
// goroutines read the file, and returns a function that removes it.
func SetBeforeParallel(f func()) (restore func()) {
	beforeParallel = f
	return func() { beforeParallel = nil }
}
