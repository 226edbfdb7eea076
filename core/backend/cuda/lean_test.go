package cuda

import (
	"sync"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/internal/fakecuda"
)

// With the fake library (no GPU): under a plan that cannot hold a, b and c
// together (devmem.go's lean), a streamed H's h goes through the lean
// entry (cuzk_cuda_h_abc_lean_scalars) with a alone uploaded or taken from
// a prefetch of a alone, which b and c are then not added to; a prefetch
// of all three is dropped. Without the cap, the lean entry is never called.
func TestLeanHUnderACapThatCannotHoldABC(t *testing.T) {
	const n = 1 << 12
	pts := testPoints(t, n-1)
	a, b, c := random(t, n), random(t, n), random(t, n)
	capped := func() *Backend {
		be := fakeBackend(t)
		plan := memPlan{chunk: 1 << 10, fixed: 1 << 10}
		plan.cap = plan.streamedNeed(n)
		require.True(t, plan.lean(n))
		be.mem.mu.Lock()
		be.mem.plan, be.mem.budget = plan, plan.cap
		be.mem.mu.Unlock()
		return be
	}

	t.Setenv(fakecuda.FailEnv, "h_abc_lean_scalars=1")
	be := capped()
	_, _, _, err := be.HMSM(pts, a, b, c, nil)
	require.ErrorContains(t, err, "h_abc_lean_scalars: failure injected", "h computed lean")
	require.False(t, be.g1.resident(pts), "H streamed")

	// a prefetched alone: taken as it is (abc_add would fail)
	t.Setenv(fakecuda.FailEnv, "abc_add=1,h_abc_scalars=1")
	pre := be.newPrefetch(nil)
	require.True(t, pre.prefetchABC(a, b, c, true))
	_, _, _, err = be.HMSM(pts, a, b, c, pre)
	require.NoError(t, err)
	require.Nil(t, pre.abc, "HMSM took the prefetch")
	pre.Release()
	// a, b and c prefetched whole: dropped, a uploaded alone
	pre = be.newPrefetch(nil)
	require.True(t, pre.prefetchABC(a, b, c, false))
	_, _, _, err = be.HMSM(pts, a, b, c, pre)
	require.NoError(t, err)
	require.Nil(t, pre.abc)
	pre.Release()
	// a lean plan's ABC puts a up alone, never all three
	pre = be.newPrefetch(nil)
	pre.ABC(a, b, c)
	require.NotNil(t, pre.abc)
	require.True(t, pre.abc.aOnly)
	pre.Release()

	t.Setenv(fakecuda.FailEnv, "h_abc_lean_scalars=1")
	free := fakeBackend(t)
	_, _, _, err = free.HMSM(pts, a, b, c, nil)
	require.NoError(t, err, "no cap: h is not lean")
}

// CheckRows of a partition that fits a cap only in smaller chunks makes
// them the device's (the plan's and both residencies'), while prefetches
// read the plan: a streamer made with larger buffers is freed and made
// again (here refused by the fake library: none is kept); a partition
// that fits changes nothing.
func TestCheckRowsShrinksTheChunks(t *testing.T) {
	o := DefaultOptions()
	own, err := config.DeviceMemoryCap("16GiB", 80<<30, 80<<30) // what a 16 GiB cap gives the library
	require.NoError(t, err)
	o.MaxDeviceMemory = own
	be := fakeBackendWith(t, o)
	require.NoError(t, be.CheckRows(1<<26))
	require.Equal(t, 1<<23, be.plan().chunk, "2^26 fits in the cap's chunks")
	st1, err := be.g1.store.(streamStore[bls.G1Affine, bls.G1Jac]).newStream(be.g1.chunkSize())
	require.NoError(t, err)
	st2, err := be.g2.store.(streamStore[bls.G2Affine, bls.G2Jac]).newStream(be.g2.chunkSize())
	require.NoError(t, err)
	be.g1.st, be.g2.st = st1, st2
	require.NoError(t, be.CheckRows(1<<10))
	require.Equal(t, 1<<23, be.g1.chunkSize())
	require.Same(t, st1, be.g1.st)

	const n = 1 << 12
	a, b, c := random(t, n), random(t, n), random(t, n)
	var wg sync.WaitGroup
	wg.Go(func() {
		for range 50 {
			pre := be.newPrefetch(nil)
			pre.ABC(a, b, c)
			pre.Release()
		}
	})
	t.Setenv(fakecuda.FailEnv, "stream_new=1002")
	require.NoError(t, be.CheckRows(1<<27))
	wg.Wait()
	require.Equal(t, 1<<22, be.plan().chunk)
	require.Equal(t, 1<<22, be.g1.chunkSize())
	require.Equal(t, 1<<21, be.g2.chunkSize(), "G2's stream buffers halved once more")
	require.Nil(t, be.g1.st, "the larger streamer freed, a new one asked for")
	require.Nil(t, be.g2.st)
}
