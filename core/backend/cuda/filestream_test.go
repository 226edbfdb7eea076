package cuda

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/internal/fakecuda"
	"github.com/cuzk/cuzk/core/params"
)

// shmDir is a directory of the test in /dev/shm; the test is skipped
// where /dev/shm is not in memory.
func shmDir(t *testing.T) string {
	if !params.InMemory("/dev/shm") {
		t.Skip("no tmpfs at /dev/shm")
	}
	dir, err := os.MkdirTemp("/dev/shm", "cuzk-cuda-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// fakeBackend is a backend on the fake CUDA library's one device.
func fakeBackend(t *testing.T) *Backend { return fakeBackendWith(t, DefaultOptions()) }

// fakeBackendWith is fakeBackend with the options o.
func fakeBackendWith(t *testing.T, o Options) *Backend {
	lib, err := Open(fakecuda.Build(t))
	require.NoError(t, err)
	gpus, err := lib.Devices()
	require.NoError(t, err)
	require.NotEmpty(t, gpus)
	be, err := NewBackend(lib, gpus[0], o)
	require.NoError(t, err)
	t.Cleanup(be.Close)
	return be
}

// With the fake library (no GPU): a set given back to a file in /dev/shm
// is page-locked as the file's pages (read-only) and each chunk is put
// from them at the points' own offsets, with no read; the lock is undone
// with the set's. Where read-only locking fails (a device without it),
// the set streams from reads of the file, as one on a disk does.
func TestFileInMemoryIsCopiedFromItsPages(t *testing.T) {
	g1, g2 := testPoints(t, 300), testPointsG2(t, 70)
	vk := &params.VerifyingKey{Alpha1: g1[0], Beta1: g1[1], Delta1: g1[2], Beta2: g2[0], Gamma2: g2[1], Delta2: g2[2], IC: g1[:3]}
	path := filepath.Join(shmDir(t), "tiled.params")
	const n = 12<<10 + 17 // off the heap: over a MiB
	require.NoError(t, params.WriteTiledFile(path, vk, params.TiledLayout{H: n, L: n, A: n, BG1: n, BG2: n}, g1, g2))
	pk, err := params.ReadProvingKey(path, params.Options{SkipSubgroupCheck: true, OffHeap: true})
	require.NoError(t, err)
	pk.ReleaseHost(true)

	for _, failLock := range []bool{false, true} {
		if failLock {
			t.Setenv(fakecuda.FailEnv, "host_register_read_only=1801") // cudaErrorNotSupported
		}
		be := fakeBackend(t)
		ss := be.g1.store.(streamStore[bls.G1Affine, bls.G1Jac])
		st, err := ss.newStream(1 << 10)
		require.NoError(t, err)
		err = ss.pin(pk.L)
		if failLock {
			require.ErrorIs(t, err, errFromFile)
			require.ErrorContains(t, err, "host register")
		} else {
			require.NoError(t, err)
			got, err := be.views.bytes(span(pk.L[1000:2000]))
			require.NoError(t, err)
			want := make([]byte, 1000*g1Size)
			require.NoError(t, params.ReadEncoded(unsafe.Pointer(&pk.L[1000]), uintptr(len(want)), want))
			require.Equal(t, want, got, "the chunk's bytes in the file")
		}
		released := 0 // bytes of the chunks given back (the section's last page is kept)
		for k := 0; k*(1<<10) < n; k++ {
			part := pk.L[k<<10 : min(n, (k+1)<<10)]
			if params.Released(span(part)) {
				released += len(part) * g1Size
			}
			require.NoError(t, ss.(aheadReader[bls.G1Affine]).readAhead(st, k%2, part))
			require.NoError(t, ss.put(st, k%2, part))
		}
		require.Greater(t, released, n*g1Size*9/10)
		tr := be.Transfers()
		if failLock {
			require.Zero(t, tr.StreamedFileMapped)
			require.Positive(t, tr.StreamedFileRead, "read from the file")
		} else {
			require.EqualValues(t, released, tr.StreamedFileMapped, "every chunk given back from the file's pages")
			require.Zero(t, tr.StreamedFileRead, "nothing read")
			ss.unpin(pk.L)
			require.Empty(t, be.views.m)
		}
		ss.freeStream(st)
	}
	runtime.KeepAlive(pk)
}

// Options.HostSync reaches the library's host_sync option: the fake, as
// the library, takes 0-3 and refuses anything else.
func TestHostSyncReachesTheLibrary(t *testing.T) {
	be := fakeBackend(t)
	for mode := 0; mode <= 3; mode++ {
		require.NoError(t, be.lib.SetOptions(be.dev, Options{MSMPool: true, HostSync: mode}), "host_sync %d", mode)
	}
	require.ErrorContains(t, be.lib.SetOptions(be.dev, Options{HostSync: 4}), "host_sync 4: want 0 (auto)")
}
