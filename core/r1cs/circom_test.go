package r1cs_test

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
)

// The real cross-check against circom's own files is the snarkjs test
// (tests/snarkjs); these check the reader's handling of structure and
// errors on files written here.
func TestCircomRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, shape := range synthetic.Shapes {
		cs, w := synthetic.Random(rng, shape, 40)
		back, err := r1cs.DecodeCircomR1CS(cs.EncodeCircomR1CS())
		require.NoError(t, err, shape.String())
		require.Equal(t, cs, back, shape.String())
		wb, err := back.DecodeCircomWitness(r1cs.EncodeCircomWitness(w))
		require.NoError(t, err)
		require.Equal(t, w, wb)
		require.NoError(t, back.IsSatisfied(wb))
	}
}

func TestCircomErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	cs, w := synthetic.Random(rng, synthetic.ShapeDense, 10)
	good := cs.EncodeCircomR1CS()
	wtns := r1cs.EncodeCircomWitness(w)
	mut := func(b []byte, f func([]byte)) []byte { c := append([]byte(nil), b...); f(c); return c }
	// The header section starts at 12 + 12; the prime at +4.
	prime := 24 + 4
	bn254 := []byte{0x01, 0x00, 0x00, 0xf0, 0x93, 0xf5, 0xe1, 0x43, 0x91, 0x70, 0xb9, 0x79, 0x48, 0xe8, 0x33, 0x28,
		0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45, 0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30}
	constraints := 24 + 64 + 12 // first constraint's A term count: after the 64-byte header section
	for _, c := range []struct {
		name, msg string
		data      []byte
	}{
		{"not r1cs", "not a circom r1cs file", []byte("wtns0000000000")},
		{"version", "version 9 not supported", mut(good, func(b []byte) { b[4] = 9 })},
		{"bn254", "not the BLS12-381 scalar field", mut(good, func(b []byte) { copy(b[prime:], bn254) })},
		{"truncated", "truncated", good[:len(good)-100]},
		{"wire range", "out of range", mut(good, func(b []byte) {
			binary.LittleEndian.PutUint32(b[constraints+4:], 1<<30)
		})},
		{"term overrun", "overrun", mut(good, func(b []byte) {
			binary.LittleEndian.PutUint32(b[constraints:], 1<<30)
		})},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := r1cs.DecodeCircomR1CS(c.data)
			require.ErrorContains(t, err, c.msg)
		})
	}
	_, err := cs.DecodeCircomWitness(wtns[:len(wtns)-32])
	require.ErrorContains(t, err, "truncated")
	other, _ := synthetic.Random(rng, synthetic.ShapeDense, 30)
	_, err = other.DecodeCircomWitness(wtns)
	require.ErrorContains(t, err, "circuit has")
	_, err = cs.DecodeCircomWitness(mut(wtns, func(b []byte) { copy(b[len(b)-32:], make([]byte, 0)); b[len(b)-1] = 0xff }))
	require.ErrorContains(t, err, "not a canonical field element")
	_, err = cs.DecodeCircomWitness(mut(wtns, func(b []byte) { copy(b[prime:], bn254) }))
	require.ErrorIs(t, err, r1cs.ErrWrongPrime)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "c.r1cs"), good, 0o644))
	back, err := r1cs.ReadCircomR1CS(filepath.Join(dir, "c.r1cs"))
	require.NoError(t, err)
	require.Equal(t, cs, back)
	_, err = r1cs.ReadCircomR1CS(filepath.Join(dir, "none.r1cs"))
	require.ErrorContains(t, err, "r1cs: ")
}
