package params

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// BenchmarkLoad compares, on one file, the unchecked load with the content
// key alone and with a load whose record hits (the default's second load):
// the key must stay a small fraction of the decode.
func BenchmarkLoad(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	pk := randomKey(rng)
	const n = 1 << 20 // 96 MiB of G1 points
	pk.H = make([]bls.G1Affine, n)
	for i := range pk.H {
		pk.H[i] = pk.L[i%len(pk.L)] // decoding costs the same for any point
	}
	dir := b.TempDir()
	path := filepath.Join(dir, "k.params")
	if err := pk.WriteFile(path); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	rec := OpenRecord(dir)
	if err := rec.AddFile(path, ValidationSetup, 0); err != nil {
		b.Fatal(err)
	}
	b.Run("unchecked", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := ReadProvingKey(path, Options{SkipSubgroupCheck: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("content-key", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			ContentKeyOf(data, 0)
		}
	})
	b.Run("record-hit", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, info, err := ReadProvingKeyInfo(path, Options{Record: rec}); err != nil || info.Validation != ValidationRecord {
				b.Fatal(err, info.Validation)
			}
		}
	})
}
