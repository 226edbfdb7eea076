package params

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"
)

// tiledFile writes a key whose sections are each over a MiB (off the heap
// when read with OffHeap), its tiles distinct multiples of the generators.
// givenBack reads the key at path off the heap, unchecked, and gives its
// host pages back (the sections then read from the file).
func givenBack(t *testing.T, path string) *ProvingKey {
	t.Helper()
	pk, err := ReadProvingKey(path, Options{SkipSubgroupCheck: true, OffHeap: true})
	require.NoError(t, err)
	pk.ReleaseHost(true)
	return pk
}

func tiledFile(t *testing.T) string {
	t.Helper()
	return tiledFileIn(t, t.TempDir())
}

// tiledFileIn writes the tests' tiled key into dir (removed after the
// test) and returns its path.
func tiledFileIn(t *testing.T, dir string) string {
	t.Helper()
	_, _, g1, g2 := bls.Generators()
	s := make([]fr.Element, 300)
	for i := range s {
		s[i].SetUint64(uint64(i + 2))
	}
	t1 := bls.BatchScalarMultiplicationG1(&g1, s)
	t2 := bls.BatchScalarMultiplicationG2(&g2, s[:70])
	vk := &VerifyingKey{Alpha1: t1[0], Beta1: t1[1], Delta1: t1[2], Beta2: t2[0], Gamma2: t2[1], Delta2: t2[2], IC: t1[:3]}
	path := filepath.Join(dir, "tiled.params")
	require.NoError(t, WriteTiledFile(path, vk, TiledLayout{H: 20000, L: 15000, A: 12000, BG1: 11000, BG2: 6000}, t1, t2))
	return path
}

func offHeap[P any](s []P) bool { return regionOf(uintptr(unsafe.Pointer(unsafe.SliceData(s)))) != nil }

func spanOf[P any](s []P) (unsafe.Pointer, uintptr) {
	var p P
	return unsafe.Pointer(unsafe.SliceData(s)), uintptr(len(s)) * unsafe.Sizeof(p)
}

// A key read off the heap gives its sections' pages back but for those
// of the first and last points, and reads them from the file again, once,
// when something needs them on the host: the same points as a key read
// onto the heap.
func TestReleasedSectionsComeBackFromTheFile(t *testing.T) {
	path := tiledFile(t)
	ref, err := ReadProvingKey(path, Options{SkipSubgroupCheck: true})
	require.NoError(t, err)
	require.False(t, offHeap(ref.H), "without OffHeap the heap")
	pk, err := ReadProvingKey(path, Options{SkipSubgroupCheck: true, OffHeap: true})
	require.NoError(t, err)
	for _, ok := range []bool{offHeap(pk.H), offHeap(pk.L), offHeap(pk.A), offHeap(pk.BG1), offHeap(pk.BG2)} {
		require.True(t, ok)
	}
	require.Equal(t, ref.H, pk.H)
	require.Equal(t, ref.BG2, pk.BG2)
	all := pk.HostBytes()

	pk.ReleaseHost(true)
	require.Less(t, pk.HostBytes(), all/10, "the pages are given back")
	require.Equal(t, ref.H[0], pk.H[0], "the first point stays")
	require.Equal(t, ref.H[len(ref.H)-1], pk.H[len(pk.H)-1], "the last point stays")
	require.NotEqual(t, ref.H[10000], pk.H[10000], "an inner point is gone")

	// Points on pages kept (the first) need nothing read: the section
	// stays given back, as a device filling it range by range needs.
	p, n := spanOf(pk.H[:1])
	require.NoError(t, EnsureHost(p, n))
	require.NotEqual(t, ref.H[10000], pk.H[10000], "nothing read back for a kept page")
	p, n = spanOf(pk.H[5000:5001])
	require.NoError(t, EnsureHost(p, n))
	require.Equal(t, ref.H, pk.H, "the whole section is back")
	pk.ReleaseHost(true)
	require.Equal(t, ref.H, pk.H, "a section needed on the host stays there")
	require.NotEqual(t, ref.L[7000], pk.L[7000], "the others are still given back")
	for _, s := range [][]bls.G1Affine{pk.L, pk.A, pk.BG1} {
		p, n := spanOf(s)
		require.NoError(t, EnsureHost(p, n))
	}
	p, n = spanOf(pk.BG2)
	require.NoError(t, EnsureHost(p, n))
	require.Equal(t, ref.L, pk.L)
	require.Equal(t, ref.A, pk.A)
	require.Equal(t, ref.BG1, pk.BG1)
	require.Equal(t, ref.BG2, pk.BG2)
	require.Equal(t, all, pk.HostBytes())

	// Heap memory is always on the host.
	p, n = spanOf(ref.H)
	require.NoError(t, EnsureHost(p, n))
}

// A file changed since the load is not read in place of the released
// points: EnsureHost fails, naming the file.
func TestReleasedSectionOfAChangedFile(t *testing.T) {
	path := tiledFile(t)
	pk := givenBack(t, path)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	time.Sleep(10 * time.Millisecond) // a new modification time
	require.NoError(t, os.WriteFile(path, data, 0o644))
	p, n := spanOf(pk.L)
	require.ErrorContains(t, EnsureHost(p, n), "changed since it was loaded")
}

// The mappings go with the key.
func TestOffHeapSectionsUnmappedWithTheKey(t *testing.T) {
	path := tiledFile(t)
	pk, err := ReadProvingKey(path, Options{SkipSubgroupCheck: true, OffHeap: true})
	require.NoError(t, err)
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(pk.H)))
	require.NotNil(t, regionOf(addr))
	pk = nil
	deadline := time.Now().Add(5 * time.Second)
	for regionOf(addr) != nil && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	require.Nil(t, regionOf(addr), "unmapped once the key is collected")

	// A failed load leaves nothing mapped.
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	bad := filepath.Join(t.TempDir(), "bad.params")
	at := 864 + 4 + 3*96 + 4 + 20000*96 + 4 + 15000*96 + 4 + 12000*96 + 4 + 500*96 // b_g1[500]
	data[at] |= 0x80                                                               // flagged compressed in an uncompressed file: H, L and A were mapped
	require.NoError(t, os.WriteFile(bad, data, 0o644))
	before := regionCount()
	_, err = ReadProvingKey(bad, Options{SkipSubgroupCheck: true, OffHeap: true})
	require.ErrorContains(t, err, "b_g1[500]")
	require.Equal(t, before, regionCount())
}

func regionCount() int {
	regions.RLock()
	defer regions.RUnlock()
	return len(regions.list)
}

// holdingChecker stands for a device that keeps what it checks or fills:
// each range is read from the host as a device's upload does (EnsureHost
// first), checked on the CPU when asked, and its host pages given back.
type holdingChecker struct{ deviceChecker }

type holdingSection[P bls.G1Affine | bls.G2Affine] struct {
	points []P
	check  func([]P) (int, error)
}

func (s holdingSection[P]) take(from, to int) error {
	p, n := spanOf(s.points[from:to])
	if err := EnsureHost(p, n); err != nil {
		return err
	}
	return nil
}

func (s holdingSection[P]) Check(from, to int) (int, error) {
	if err := s.take(from, to); err != nil {
		return -1, err
	}
	bad, err := s.check(s.points[from:to])
	if bad >= 0 || err != nil {
		return from + bad, err
	}
	p, n := spanOf(s.points[from:to])
	ReleaseHost(p, n)
	return -1, nil
}

func (s holdingSection[P]) Fill(from, to int) error {
	if err := s.take(from, to); err != nil {
		return err
	}
	p, n := spanOf(s.points[from:to])
	ReleaseHost(p, n)
	return nil
}

func (s holdingSection[P]) Done(bool) {}

func (c *holdingChecker) BeginG1(p []bls.G1Affine) SectionCheck {
	return holdingSection[bls.G1Affine]{p, CPUChecker{}.CheckSubgroupG1}
}

func (c *holdingChecker) BeginG2(p []bls.G2Affine) SectionCheck {
	return holdingSection[bls.G2Affine]{p, CPUChecker{}.CheckSubgroupG2}
}

// A load that hands a device every range, checked or not, leaves little
// of the key on the host: each range's upload finds its own pages there
// while the ranges before it are already given back.
func TestLoadGivesRangesBackAsTheyGoUp(t *testing.T) {
	path := tiledFile(t)
	ref, err := ReadProvingKey(path, Options{SkipSubgroupCheck: true})
	require.NoError(t, err)
	for _, skip := range []bool{false, true} {
		pk, info, err := ReadProvingKeyInfo(path, Options{Checker: &holdingChecker{}, SkipSubgroupCheck: skip, OffHeap: true, NbTasks: 2})
		require.NoError(t, err)
		want := ValidationChecked
		if skip {
			want = ValidationSkipped
		}
		require.Equal(t, want, info.Validation)
		require.Less(t, pk.HostBytes(), ref.HostBytes()/10, "skip %v: the ranges' pages were given back", skip)
		for _, s := range pk.sections() {
			require.NoError(t, EnsureHost(s.p, s.n))
		}
		require.Equal(t, ref.H, pk.H)
		require.Equal(t, ref.BG2, pk.BG2)
	}
}
