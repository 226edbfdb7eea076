package params

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// timedChecker stands for a device checker: every point passes, and a
// call costs perPoint per point (G2 twice), the time of the device.
type timedChecker struct{ perPoint time.Duration }

func (c timedChecker) CheckSubgroupG1(p []bls.G1Affine) (int, error) {
	time.Sleep(time.Duration(len(p)) * c.perPoint)
	return -1, nil
}

func (c timedChecker) CheckSubgroupG2(p []bls.G2Affine) (int, error) {
	time.Sleep(time.Duration(len(p)) * 2 * c.perPoint)
	return -1, nil
}

// BenchmarkLoad loads one file (96 MiB, its sections in the proportions of
// a Filecoin file: h, l, a of n points, b_g1 n/2, b_g2 n/4) the ways a
// load can go: unchecked; found in the record by stamp (no hashing) and by
// content (hashed); checked by a device checker that costs a fixed time
// per point, with an empty record (hashing too) and without, the checks
// overlapping the decode; and, for comparison, the decode then the whole
// check, as before the overlap. The time per point is set so that the
// check takes ~1.4× the unchecked decode (5.6 s against 3.9 s measured on
// an H200 host for a 2^24 file).
func BenchmarkLoad(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	pk := randomKey(rng)
	const n = 1 << 18
	fill := func(dst []bls.G1Affine) []bls.G1Affine {
		for i := range dst {
			dst[i] = pk.L[i%len(pk.L)] // decoding costs the same for any point
		}
		return dst
	}
	pk.H, pk.L, pk.A, pk.BG1 = fill(make([]bls.G1Affine, n)), fill(make([]bls.G1Affine, n)), fill(make([]bls.G1Affine, n)), fill(make([]bls.G1Affine, n/2))
	pk.BG2 = make([]bls.G2Affine, n/4)
	for i := range pk.BG2 {
		pk.BG2[i] = pk.Beta2
	}
	dir := b.TempDir()
	path := filepath.Join(dir, "k.params")
	if err := pk.WriteFile(path); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	size := st.Size()

	// Stamped: the file's stamp recorded at once (racy window off).
	stamped := OpenRecord(filepath.Join(dir, "stamped"), nil)
	stamped.racy = 0
	if err := stamped.AddFile(path, ValidationSetup, 0); err != nil {
		b.Fatal(err)
	}
	// By content only: no stamp is ever recent enough.
	content := OpenRecord(filepath.Join(dir, "content"), nil)
	content.racy = 1 << 62
	if err := content.AddFile(path, ValidationSetup, 0); err != nil {
		b.Fatal(err)
	}

	decode := time.Duration(1 << 62)
	for range 3 { // the fastest of three: the first pays for the page cache
		start := time.Now()
		if _, err := ReadProvingKey(path, Options{SkipSubgroupCheck: true}); err != nil {
			b.Fatal(err)
		}
		decode = min(decode, time.Since(start))
	}
	points := int64(3*n + n/2 + 2*n/4)
	device := timedChecker{perPoint: time.Duration(1.4 * float64(decode) / float64(points))}

	load := func(name string, opt func() Options, want Validation, stampHit bool) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				_, info, err := ReadProvingKeyInfo(path, opt())
				if err != nil || info.Validation != want || info.Stamped != stampHit {
					b.Fatal(err, info.Validation, info.Stamped)
				}
			}
		})
	}
	load("unchecked", func() Options { return Options{SkipSubgroupCheck: true} }, ValidationSkipped, false)
	load("record-stamp", func() Options { return Options{Record: stamped, Checker: device} }, ValidationRecord, true)
	load("record-content", func() Options { return Options{Record: content, Checker: device} }, ValidationRecord, false)
	empty := OpenRecord(filepath.Join(dir, "empty"), nil)
	load("checked-empty-record", func() Options {
		os.Remove(empty.Path())
		return Options{Record: empty, Checker: device}
	}, ValidationChecked, false)
	load("checked-no-record", func() Options { return Options{Checker: device} }, ValidationChecked, false)
	b.Run("checked-sequential", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			pk, err := ReadProvingKey(path, Options{SkipSubgroupCheck: true})
			if err != nil {
				b.Fatal(err)
			}
			if err := CheckSubgroups(pk, device, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("content-key", func(b *testing.B) {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(size)
		for b.Loop() {
			ContentKeyOf(data, 0)
		}
	})
}
