package params

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/blake2b"

	"github.com/cuzk/cuzk/core/internal/paramtest"
	"github.com/cuzk/cuzk/core/progress"
)

// countingChecker counts the points it is given and delegates to the CPU.
type countingChecker struct {
	calls, points atomic.Int64
}

func (c *countingChecker) CheckSubgroupG1(p []bls.G1Affine) (int, error) {
	c.calls.Add(1)
	c.points.Add(int64(len(p)))
	return CPUChecker{}.CheckSubgroupG1(p)
}

func (c *countingChecker) CheckSubgroupG2(p []bls.G2Affine) (int, error) {
	c.calls.Add(1)
	c.points.Add(int64(len(p)))
	return CPUChecker{}.CheckSubgroupG2(p)
}

func offSubgroupG2(*testing.T) []byte {
	p := paramtest.OffSubgroupG2()
	raw := p.RawBytes()
	return raw[:]
}

func keyBytes(t *testing.T, pk *ProvingKey) []byte {
	var buf bytes.Buffer
	_, err := pk.WriteTo(&buf)
	require.NoError(t, err)
	return buf.Bytes()
}

// sectionOffset returns the byte offset of point i of the named section in
// a file of pk's shape.
func sectionOffset(pk *ProvingKey, section string, i int) int {
	return paramtest.Offset(paramtest.Counts{IC: len(pk.IC), H: len(pk.H), L: len(pk.L), A: len(pk.A), BG1: len(pk.BG1)}, section, i)
}

func TestRecordSkipsCheckOfKnownContents(t *testing.T) {
	dir := t.TempDir()
	pk := randomKey(rand.New(rand.NewPCG(7, 8)))
	path := filepath.Join(dir, "k.params")
	good := keyBytes(t, pk)
	require.NoError(t, os.WriteFile(path, good, 0o644))
	rec := stampedRecord(filepath.Join(dir, "record")) // the second load finds the stamp
	chk := &countingChecker{}
	opt := Options{Checker: chk, Record: rec}

	got, info, err := ReadProvingKeyInfo(path, opt)
	require.NoError(t, err)
	require.Equal(t, pk, got)
	require.Equal(t, ValidationChecked, info.Validation)
	require.NoError(t, info.RecordErr)
	// a device checker gets the proving key's queries; the verifying
	// key's points are checked on the CPU
	all := int64(len(pk.H) + len(pk.L) + len(pk.A) + len(pk.BG1) + len(pk.BG2))
	require.Equal(t, all, chk.points.Load(), "every query point checked the first time")

	got, info, err = ReadProvingKeyInfo(path, opt)
	require.NoError(t, err)
	require.Equal(t, pk, got)
	require.Equal(t, ValidationRecord, info.Validation)
	require.Equal(t, all, chk.points.Load(), "no point checked the second time")

	// The key is the documented construction, computed independently here.
	h := sha256Of([]byte(contentTag), []byte{0, 0, 0, 0, 0, 0, byte(len(good) >> 8), byte(len(good))}, sha256Of(good))
	require.Equal(t, hex.EncodeToString(h), info.Key.String())

	// Trusted by the caller: no checker, no record needed.
	_, info, err = ReadProvingKeyInfo(path, Options{SkipSubgroupCheck: true, Checker: chk})
	require.NoError(t, err)
	require.Equal(t, ValidationSkipped, info.Validation)
	require.Equal(t, all, chk.points.Load())
}

func TestContentKeyChunks(t *testing.T) {
	data := make([]byte, 2*contentChunk+5)
	for i := range data {
		data[i] = byte(i * 7)
	}
	want := sha256Of([]byte(contentTag), []byte{0, 0, 0, 0, 0, 0x01, 0x00, 0x00, 0x05}[1:],
		sha256Of(data[:contentChunk]), sha256Of(data[contentChunk:2*contentChunk]), sha256Of(data[2*contentChunk:]))
	for _, tasks := range []int{1, 2, 5} {
		k := ContentKeyOf(data, tasks)
		require.Equal(t, want, k[:])
	}
	k := ContentKeyOf(nil, 0)
	require.Equal(t, sha256Of([]byte(contentTag), make([]byte, 8)), k[:])
}

// A point moved off the subgroup (kept on the curve) is refused on every
// load, also after valid contents at the same path were recorded.
func TestOffSubgroupRefusedEveryTime(t *testing.T) {
	pk := randomKey(rand.New(rand.NewPCG(9, 10)))
	good := keyBytes(t, pk)
	cases := []struct {
		section string
		index   int
		point   []byte
		msg     string
	}{
		{"l", 3, offSubgroupG1(t), "params: l[3]: point not in the prime-order subgroup"},
		{"h", 0, offSubgroupG1(t), "params: h[0]: point not in the prime-order subgroup"},
		{"b_g2", 1, offSubgroupG2(t), "params: b_g2[1]: point not in the prime-order subgroup"},
	}
	for _, c := range cases {
		t.Run(c.section, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "k.params")
			rec := OpenRecord(dir, nil)
			opt := Options{Record: rec}
			require.NoError(t, os.WriteFile(path, good, 0o644))
			_, err := ReadProvingKey(path, opt) // records the valid contents
			require.NoError(t, err)

			bad := append([]byte(nil), good...)
			copy(bad[sectionOffset(pk, c.section, c.index):], c.point)
			require.NoError(t, os.WriteFile(path, bad, 0o644))
			for range 3 {
				_, err := ReadProvingKey(path, opt)
				require.ErrorIs(t, err, ErrNotInGroup)
				require.ErrorContains(t, err, c.msg)
			}
			_, err = DecodeProvingKey(bad, Options{})
			require.ErrorIs(t, err, ErrNotInGroup)
			// Curve checks stay when the file is trusted.
			_, err = ReadProvingKey(path, Options{SkipSubgroupCheck: true})
			require.NoError(t, err)
		})
	}
}

func TestManifestTrustsPublishedDigest(t *testing.T) {
	dir := t.TempDir()
	pk := randomKey(rand.New(rand.NewPCG(11, 12)))
	good := keyBytes(t, pk)
	path := filepath.Join(dir, "v28-test.params")
	require.NoError(t, os.WriteFile(path, good, 0o644))
	sum := blake2b.Sum512(good)
	m := Manifest{"v28-test.params": {Digest: hex.EncodeToString(sum[:16])}}
	chk := &countingChecker{}
	rec := OpenRecord(dir, nil)

	_, info, err := ReadProvingKeyInfo(path, Options{Checker: chk, Manifest: m, Record: rec})
	require.NoError(t, err)
	require.Equal(t, ValidationManifest, info.Validation)
	require.Zero(t, chk.calls.Load())
	_, info, err = ReadProvingKeyInfo(path, Options{Checker: chk, Manifest: m, Record: rec})
	require.NoError(t, err)
	require.Equal(t, ValidationRecord, info.Validation, "the manifest match is recorded")

	// Another name, or other contents under the listed name: checked.
	other := filepath.Join(dir, "other.params")
	require.NoError(t, os.WriteFile(other, good, 0o644))
	_, info, err = ReadProvingKeyInfo(other, Options{Checker: chk, Manifest: m})
	require.NoError(t, err)
	require.Equal(t, ValidationChecked, info.Validation)
	bad := append([]byte(nil), good...)
	copy(bad[sectionOffset(pk, "a", 1):], offSubgroupG1(t))
	require.NoError(t, os.WriteFile(path, bad, 0o644))
	_, err = ReadProvingKey(path, Options{Checker: chk, Manifest: m, Record: rec})
	require.ErrorIs(t, err, ErrNotInGroup)
	require.ErrorContains(t, err, "params: a[1]")
}

func TestEmbeddedManifest(t *testing.T) {
	m := FilecoinManifest()
	require.NotEmpty(t, m)
	require.Equal(t, m, ManifestUnlessChecker(nil), "the CPU's check: the manifest first")
	require.Nil(t, ManifestUnlessChecker(CPUChecker{}), "a checker of its own: none")
	for name, e := range m {
		require.Len(t, e.Digest, 32, name)
		_, err := hex.DecodeString(e.Digest)
		require.NoError(t, err, name)
	}
	// The embedded copy is the project's shared manifest, where it exists.
	shared, err := os.ReadFile("../../../shared/filecoin-parameters.json")
	if os.IsNotExist(err) {
		t.Skip("no shared manifest beside the checkout")
	}
	require.NoError(t, err)
	require.Equal(t, shared, filecoinManifest)
}

// keyFile writes a random key to a new directory.
func keyFile(t *testing.T, seed uint64) (dir, path string) {
	dir = t.TempDir()
	path = filepath.Join(dir, "k.params")
	require.NoError(t, randomKey(rand.New(rand.NewPCG(seed, seed+1))).WriteFile(path))
	return dir, path
}

func TestCorruptRecordReadsEmpty(t *testing.T) {
	dir, path := keyFile(t, 13)
	rec := OpenRecord(dir, nil)
	for _, junk := range [][]byte{[]byte("{not json"), {0, 1, 2}, []byte(`{"entries": 7}`), nil} {
		require.NoError(t, os.WriteFile(rec.Path(), junk, 0o600))
		chk := &countingChecker{}
		_, info, err := ReadProvingKeyInfo(path, Options{Checker: chk, Record: rec})
		require.NoError(t, err)
		require.Equal(t, ValidationChecked, info.Validation)
		require.NotZero(t, chk.points.Load())
		require.NoError(t, info.RecordErr, "the corrupt record is replaced")
		_, info, err = ReadProvingKeyInfo(path, Options{Checker: chk, Record: rec})
		require.NoError(t, err)
		require.Equal(t, ValidationRecord, info.Validation)
	}
	// A record in a directory that cannot be created: the load still works.
	blocker := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(blocker, nil, 0o600))
	_, info, err := ReadProvingKeyInfo(path, Options{Record: OpenRecord(filepath.Join(blocker, "sub"), nil)})
	require.NoError(t, err)
	require.Equal(t, ValidationChecked, info.Validation)
	require.Error(t, info.RecordErr)
}

func TestAddFileRecordsWrittenKey(t *testing.T) {
	dir, path := keyFile(t, 15)
	rec := stampedRecord(dir) // found by stamp: no check starts
	require.NoError(t, rec.AddFile(path, ValidationSetup, 0))
	chk := &countingChecker{}
	_, info, err := ReadProvingKeyInfo(path, Options{Checker: chk, Record: rec})
	require.NoError(t, err)
	require.Equal(t, ValidationRecord, info.Validation)
	require.True(t, info.Stamped, "AddFile keeps the stamp")
	require.Zero(t, chk.calls.Load())
}

// A device checker gets each query whole (the slices the MSMs use, so that
// the upload is shared) and the index it reports names the point; the
// verifying key's points are checked on the CPU, with progress after each.
func TestCheckSubgroupsIndexAcrossChunks(t *testing.T) {
	pk := &ProvingKey{}
	_, _, g1, g2 := bls.Generators()
	pk.Alpha1, pk.Beta1, pk.Delta1 = g1, g1, g1
	pk.Beta2, pk.Gamma2, pk.Delta2 = g2, g2, g2
	pk.L = make([]bls.G1Affine, checkChunk+10)
	for i := range pk.L {
		pk.L[i] = g1
	}
	var off bls.G1Affine
	raw := offSubgroupG1(t)
	require.NoError(t, decodeG1(raw, &off, false))
	pk.L[checkChunk+3] = off
	var reports []int64
	err := CheckSubgroups(pk, markedChecker{bad: off}, func(e progress.Event) {
		require.Equal(t, StageSubgroup, e.Stage)
		require.Equal(t, progress.Points, e.Unit)
		reports = append(reports, e.Done)
	})
	require.ErrorIs(t, err, ErrNotInGroup)
	require.ErrorContains(t, err, "params: l[262147]")
	require.Equal(t, []int64{1, 2, 3, 4, 5, 6}, reports)
}

// markedChecker flags one given G1 point: cheap enough for large inputs.
type markedChecker struct{ bad bls.G1Affine }

func (m markedChecker) CheckSubgroupG1(p []bls.G1Affine) (int, error) {
	for i := range p {
		if p[i].Equal(&m.bad) {
			return i, nil
		}
	}
	return -1, nil
}

func (m markedChecker) CheckSubgroupG2([]bls.G2Affine) (int, error) { return -1, nil }

func sha256Of(parts ...[]byte) []byte {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}

// TestCPUCheckReportsPerBlock: the CPU check tells of its points as its
// goroutines finish each block of cpuBlock, not once a chunk of checkChunk
// was handed out: every report moves by at most a block a goroutine, the
// last is the whole key, and a chunk's points arrive in many reports.
func TestCPUCheckReportsPerBlock(t *testing.T) {
	pk := &ProvingKey{}
	_, _, g1, g2 := bls.Generators()
	pk.Alpha1, pk.Beta1, pk.Delta1 = g1, g1, g1
	pk.Beta2, pk.Gamma2, pk.Delta2 = g2, g2, g2
	pk.H = make([]bls.G1Affine, 5*cpuBlock+7)
	for i := range pk.H {
		pk.H[i] = g1
	}
	const tasks = 2
	var reports []int64
	err := CheckSubgroups(pk, CPUChecker{NbTasks: tasks}, progress.Serialised(func(e progress.Event) {
		reports = append(reports, e.Done)
	}))
	require.NoError(t, err)
	total := int64(len(pk.H) + 6)
	require.Equal(t, total, reports[len(reports)-1])
	var prev int64
	for _, d := range reports {
		require.LessOrEqual(t, d-prev, int64(tasks*cpuBlock), "a report covers at most a block a goroutine")
		prev = d
	}
	// the vk's six points, then h's 5127 in blocks of 1024 over two
	// goroutines: at least five reports for h
	require.GreaterOrEqual(t, len(reports), 6+5)
}
