package params

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// memDir is a directory of the test in /dev/shm; the test is skipped
// where there is none.
func memDir(t *testing.T) string {
	if !InMemory("/dev/shm") {
		t.Skip("no tmpfs at /dev/shm")
	}
	dir, err := os.MkdirTemp("/dev/shm", "cuzk-params-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// A given-back section of a file in /dev/shm maps to the bytes
// ReadEncoded reads, for any range of whole points (offsets off a page
// boundary included), G1 and G2, with nothing decoded onto the host; a
// range that is not whole points or not a section is refused.
func TestMapEncodedGivesTheBytesReadEncodedReads(t *testing.T) {
	pk := givenBack(t, tiledFileIn(t, memDir(t)))
	before := pk.HostBytes()
	for _, r := range [][2]int{{0, 1}, {0, 15000}, {1, 14999}, {7000, 9123}, {14999, 15000}} {
		p, n := spanOf(pk.L[r[0]:r[1]])
		want := make([]byte, n)
		require.NoError(t, ReadEncoded(p, n, want))
		v, err := MapEncoded(p, n)
		require.NoError(t, err)
		require.Equal(t, want, v.Bytes(), "L[%d:%d]", r[0], r[1])
		require.NoError(t, v.Unchanged())
		require.NoError(t, v.Close())
		require.NoError(t, v.Close(), "closed twice")
	}
	p, n := spanOf(pk.BG2[3:])
	want := make([]byte, n)
	require.NoError(t, ReadEncoded(p, n, want))
	v, err := MapEncoded(p, n)
	require.NoError(t, err)
	require.Equal(t, want, v.Bytes())
	require.NoError(t, v.Close())
	require.Equal(t, before, pk.HostBytes(), "nothing decoded onto the host")

	lp, ln := spanOf(pk.L)
	_, err = MapEncoded(lp, 95)
	require.ErrorContains(t, err, "not whole points")
	_, err = MapEncoded(lp, ln+96)
	require.ErrorContains(t, err, "not a section")
	runtime.KeepAlive(pk)
}

// A file on a disk is not mapped (its pages locked would hold the whole
// file in RAM), nor one whose descriptor was closed or that was written
// since the load; a view made before the write says so.
func TestMapEncodedRefusesADiskFileAndAChangedOne(t *testing.T) {
	if dir := t.TempDir(); !InMemory(dir) {
		pk := givenBack(t, tiledFileIn(t, dir))
		_, err := MapEncoded(spanOf(pk.L))
		require.ErrorIs(t, err, ErrNotInMemory)
		runtime.KeepAlive(pk)
	}
	path := tiledFileIn(t, memDir(t))
	pk := givenBack(t, path)
	v, err := MapEncoded(spanOf(pk.L))
	require.NoError(t, err)
	defer v.Close()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	time.Sleep(10 * time.Millisecond) // a new modification time
	require.NoError(t, os.WriteFile(path, data, 0o644))
	require.ErrorContains(t, v.Unchanged(), "changed since it was loaded")
	_, err = MapEncoded(spanOf(pk.A))
	require.ErrorContains(t, err, "changed since it was loaded")

	pk2 := givenBack(t, path)
	pk2.CloseFile()
	_, err = MapEncoded(spanOf(pk2.L))
	require.ErrorIs(t, err, ErrNotInMemory)
	runtime.KeepAlive(pk)
	runtime.KeepAlive(pk2)
}
