package params

import (
	"os"
	"runtime"
	"testing"
	"time"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/internal/filetest"
)

// A released section's points read as the file stores them: each range
// decodes (the loader's decoder) to the points a key read onto the heap
// has, and is the points' uncompressed encoding byte for byte; the host
// pages stay given back.
func TestReadEncodedGivesTheFilesPoints(t *testing.T) {
	path := tiledFile(t)
	ref, err := ReadProvingKey(path, Options{SkipSubgroupCheck: true})
	require.NoError(t, err)
	pk, err := ReadProvingKey(path, Options{SkipSubgroupCheck: true, OffHeap: true})
	require.NoError(t, err)
	p, n := spanOf(pk.L)
	require.True(t, InFile(p, n))
	require.False(t, Released(p, n), "on the host until given back")
	require.False(t, InFile(spanOf(ref.L)), "heap memory is not read from the file")
	require.False(t, Released(spanOf(ref.L)))
	pk.ReleaseHost(true)
	require.True(t, Released(p, n))
	before := pk.HostBytes()

	for _, r := range [][2]int{{0, 1}, {0, 15000}, {1, 14999}, {7000, 9123}, {14999, 15000}} {
		lo, hi := r[0], r[1]
		dst := make([]byte, (hi-lo)*G1Uncompressed)
		p, n := spanOf(pk.L[lo:hi])
		require.NoError(t, ReadEncoded(p, n, dst))
		for i := lo; i < hi; i++ {
			var got bls.G1Affine
			enc := dst[(i-lo)*G1Uncompressed:]
			require.NoError(t, decodeG1(enc, &got, false))
			require.Equal(t, ref.L[i], got, "L[%d]", i)
			want := ref.L[i].RawBytes()
			require.Equal(t, want[:], enc[:G1Uncompressed])
		}
	}
	dst := make([]byte, len(pk.BG2)*G2Uncompressed)
	require.NoError(t, ReadEncoded(unsafe.Pointer(unsafe.SliceData(pk.BG2)), uintptr(len(dst)), dst))
	for i := range pk.BG2 {
		var got bls.G2Affine
		require.NoError(t, decodeG2(dst[i*G2Uncompressed:], &got, false))
		require.Equal(t, ref.BG2[i], got, "B_G2[%d]", i)
	}
	require.Equal(t, before, pk.HostBytes(), "nothing decoded onto the host")

	// Not whole points, past the section, the wrong length: refused.
	require.ErrorContains(t, ReadEncoded(unsafe.Add(p, 1), 96, make([]byte, 96)), "not whole points")
	require.ErrorContains(t, ReadEncoded(p, 95, make([]byte, 95)), "not whole points")
	require.ErrorContains(t, ReadEncoded(p, 96, make([]byte, 192)), "not whole points")
	require.ErrorContains(t, ReadEncoded(p, n+96, make([]byte, n+96)), "not a section")
	hp, hn := spanOf(ref.L)
	require.ErrorContains(t, ReadEncoded(hp, hn, make([]byte, hn)), "not a section")
	runtime.KeepAlive(pk)
}

// A given-back range read decoded from the file (a device's upload with
// no streamer to convert it) gives the points a key read onto the heap
// holds, G1 and G2, and decodes nothing into the section.
func TestReadDecodedGivesTheKeysPoints(t *testing.T) {
	path := tiledFile(t)
	ref, err := ReadProvingKey(path, Options{SkipSubgroupCheck: true})
	require.NoError(t, err)
	pk := givenBack(t, path)
	before := pk.HostBytes()
	for _, r := range [][2]int{{0, 1}, {0, 15000}, {1, 14999}, {7000, 9123}} {
		got := make([]bls.G1Affine, r[1]-r[0])
		p, n := spanOf(pk.L[r[0]:r[1]])
		require.NoError(t, ReadDecoded(p, n, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(got))), n)))
		require.Equal(t, ref.L[r[0]:r[1]], got)
	}
	got := make([]bls.G2Affine, len(pk.BG2)-5)
	p, n := spanOf(pk.BG2[5:])
	require.NoError(t, ReadDecoded(p, n, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(got))), n)))
	require.Equal(t, ref.BG2[5:], got)
	require.Equal(t, before, pk.HostBytes(), "nothing decoded onto the host")
	require.True(t, Released(spanOf(pk.L)))

	hp, hn := spanOf(ref.L)
	require.ErrorContains(t, ReadDecoded(hp, hn, make([]byte, hn)), "not a section")
	buf := make([]byte, 2*G1Uncompressed+1)
	lp, _ := spanOf(pk.L[:2])
	require.ErrorContains(t, ReadDecoded(lp, 2*G1Uncompressed, buf[1:]), "not aligned")
	runtime.KeepAlive(pk)
}

// A file changed or cut since the load is not read in place of the
// released points.
func TestReadEncodedOfAChangedFile(t *testing.T) {
	path := tiledFile(t)
	pk := givenBack(t, path)
	p, n := spanOf(pk.L)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	time.Sleep(10 * time.Millisecond) // a new modification time
	require.NoError(t, os.WriteFile(path, data, 0o644))
	require.ErrorContains(t, ReadEncoded(p, n, make([]byte, n)), "changed since it was loaded")
	require.NoError(t, os.Truncate(path, 1000))
	require.Error(t, ReadEncoded(p, n, make([]byte, n)))
	runtime.KeepAlive(pk) // its sections are unmapped with it
}

// The file loaded is the one read again, through a descriptor kept open
// since the load, and closed with the key: another file renamed over its
// path is not read in its place, and its removal (a parameter file in
// /dev/shm removed once loaded) loses nothing.
func TestReleasedPointsReadFromTheFileLoadedAfterItIsRemoved(t *testing.T) {
	path := tiledFile(t)
	ref, err := ReadProvingKey(path, Options{SkipSubgroupCheck: true})
	require.NoError(t, err)
	pk, err := ReadProvingKey(path, Options{SkipSubgroupCheck: true, OffHeap: true})
	require.NoError(t, err)
	require.Equal(t, 1, filetest.OpenDescriptors(t, path), "kept while the key lives")
	pk.ReleaseHost(true)

	// Another file of the same size over the path, then no file at all.
	other := path + ".other"
	require.NoError(t, os.WriteFile(other, make([]byte, fileSize(t, path)), 0o644))
	require.NoError(t, os.Rename(other, path))
	l, ln := spanOf(pk.L)
	dst := make([]byte, ln)
	require.NoError(t, ReadEncoded(l, ln, dst))
	for i := range pk.L {
		want := ref.L[i].RawBytes()
		require.Equal(t, want[:], dst[i*G1Uncompressed:(i+1)*G1Uncompressed], "L[%d]", i)
	}
	require.NoError(t, os.Remove(path))
	a, an := spanOf(pk.A)
	require.NoError(t, EnsureHost(a, an))
	require.Equal(t, ref.A, pk.A)
	clear(dst)
	require.NoError(t, ReadEncoded(l, ln, dst))
	mid := ref.L[len(ref.L)/2].RawBytes()
	require.Equal(t, mid[:], dst[len(ref.L)/2*G1Uncompressed:][:G1Uncompressed], "a point of a given-back page, from the removed file")

	// Closed (the devices hold the key): a section read again opens the
	// path, and the file is gone.
	pk.CloseFile()
	require.Zero(t, filetest.OpenDescriptors(t, path))
	require.ErrorContains(t, ReadEncoded(l, ln, dst), "no such file")
	runtime.KeepAlive(pk)
}

// A key's descriptor closes when the key is collected, and after
// CloseFile another file renamed over the path is refused.
func TestKeptDescriptorClosesWithTheKey(t *testing.T) {
	path := tiledFile(t)
	pk := givenBack(t, path)
	l, ln := spanOf(pk.L)
	dst := make([]byte, ln)
	require.NoError(t, ReadEncoded(l, ln, dst))
	pk.CloseFile()
	require.NoError(t, ReadEncoded(l, ln, dst), "the path opened again")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	other := path + ".other"
	require.NoError(t, os.WriteFile(other, data, 0o644)) // same bytes and times, another file
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.NoError(t, os.Chtimes(other, st.ModTime(), st.ModTime()))
	require.NoError(t, os.Rename(other, path))
	require.ErrorContains(t, ReadEncoded(l, ln, dst), "changed since it was loaded")
	runtime.KeepAlive(pk)

	func() {
		pk, err := ReadProvingKey(path, Options{SkipSubgroupCheck: true, OffHeap: true})
		require.NoError(t, err)
		require.Equal(t, 1, filetest.OpenDescriptors(t, path))
		runtime.KeepAlive(pk)
	}()
	require.Eventually(t, func() bool {
		runtime.GC()
		return filetest.OpenDescriptors(t, path) == 0
	}, 10*time.Second, 10*time.Millisecond, "the descriptor outlived its key")
}

// fileSize is the size of the file at path.
func fileSize(t *testing.T, path string) int {
	t.Helper()
	st, err := os.Stat(path)
	require.NoError(t, err)
	return int(st.Size())
}
