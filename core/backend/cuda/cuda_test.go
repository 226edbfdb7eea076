package cuda

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/consensys/gnark-crypto/utils"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/ntt"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
)

// The GPU tests need libcuzk_cuda.so (CUZK_CUDA_LIB) and a GPU: they run on
// a GPU host through cuda/run-device.sh, which sets
// CUZK_CUDA_REQUIRED=1 so that a missing library fails instead of skipping.
func gpu(t testing.TB) *Backend {
	t.Helper()
	return gpuWith(t, benchOptions())
}

// benchOptions are the default kernel options with the device script's
// experiment knobs (cuda/run-device.sh: CUZK_CUDA_PROFILE=1 phase timings,
// CUZK_CUDA_MSM_C window bits, CUZK_CUDA_MSM_POOL=0 no pool,
// CUZK_CUDA_HOST_SYNC 0-3 the host's wait), which only the tests read.
func benchOptions() Options {
	o := DefaultOptions()
	o.Profile = os.Getenv("CUZK_CUDA_PROFILE") != ""
	o.MSMWindowBits, _ = strconv.Atoi(os.Getenv("CUZK_CUDA_MSM_C"))
	o.MSMPool = os.Getenv("CUZK_CUDA_MSM_POOL") != "0"
	o.HostSync, _ = strconv.Atoi(os.Getenv("CUZK_CUDA_HOST_SYNC"))
	return o
}

// TestHostSyncModes: each way of waiting for the device (the device's
// scheduling flags) gives the CPU's MSM; other values are refused.
func TestHostSyncModes(t *testing.T) {
	be := gpu(t)
	defer be.Close()
	const n = 1<<12 + 5
	pts, sc := testPoints(t, n), scalarKinds(t, n)["uniform"]
	want := cpuG1(t, pts, sc)
	for mode := 3; mode >= 0; mode-- {
		o := benchOptions()
		o.HostSync = mode
		require.NoError(t, be.lib.SetOptions(be.dev, o), "host_sync %d", mode)
		got, _, err := be.MSMG1(pts, sc)
		require.NoError(t, err, "host_sync %d", mode)
		require.True(t, got.Equal(&want), "host_sync %d", mode)
	}
	for _, bad := range []int{-1, 4} {
		o := benchOptions()
		o.HostSync = bad
		require.ErrorContains(t, be.lib.SetOptions(be.dev, o), fmt.Sprintf("host_sync %d: want 0 (auto)", bad))
	}
	require.NoError(t, be.lib.SetOptions(be.dev, benchOptions()))
}

func gpuWith(t testing.TB, opts Options) *Backend {
	t.Helper()
	path := os.Getenv("CUZK_CUDA_LIB")
	if path == "" {
		if os.Getenv("CUZK_CUDA_REQUIRED") != "" {
			t.Fatal("CUZK_CUDA_REQUIRED is set but CUZK_CUDA_LIB is not")
		}
		t.Skip("CUZK_CUDA_LIB not set: the GPU tests run on a GPU host (cuda/run-device.sh)")
	}
	lib, err := Open(path)
	require.NoError(t, err)
	gpus, err := lib.Devices()
	require.NoError(t, err)
	require.NotEmpty(t, gpus, "no CUDA device")
	t.Logf("device 0: %s, %d GiB", gpus[0].Name, gpus[0].VRAMTotal>>30)
	be, err := NewBackend(lib, gpus[0], opts)
	require.NoError(t, err)
	return be
}

func sizes(t *testing.T) []int {
	s := os.Getenv("CUZK_CUDA_SIZES")
	if s == "" {
		s = "10,16,20"
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		require.NoError(t, err)
		out = append(out, k)
	}
	return out
}

// random returns n fresh uniformly random elements (never zeros).
func random(t testing.TB, n int) []fr.Element {
	t.Helper()
	v := make([]fr.Element, n)
	per := (n + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += per {
		wg.Go(func() {
			buf := make([]byte, 48*1024)
			for i := lo; i < min(n, lo+per); i += 1024 {
				rand.Read(buf) // crypto/rand: never fails, fills buf
				for j := 0; j < 1024 && i+j < min(n, lo+per); j++ {
					v[i+j].SetBytes(buf[48*j : 48*j+48])
				}
			}
		})
	}
	wg.Wait()
	return v
}

// cpuNTT is the reference: gnark-crypto's FFT in natural order.
func cpuNTT(x []fr.Element, inverse, coset bool) {
	d := ntt.Domain(len(x))
	var opts []fft.Option
	if coset {
		opts = append(opts, fft.OnCoset())
	}
	if inverse {
		d.FFTInverse(x, fft.DIF, opts...)
	} else {
		d.FFT(x, fft.DIF, opts...)
	}
	utils.BitReverse(x)
}

func firstDiff(a, b []fr.Element) int {
	for i := range a {
		if !a[i].Equal(&b[i]) {
			return i
		}
	}
	return -1
}

func TestNTTMatchesCPU(t *testing.T) {
	be := gpu(t)
	for _, k := range sizes(t) {
		n := 1 << k
		for _, mode := range []struct {
			inverse, coset bool
		}{{false, false}, {true, false}, {false, true}, {true, true}} {
			x := random(t, n)
			want := append([]fr.Element(nil), x...)
			cpuNTT(want, mode.inverse, mode.coset)
			require.NoError(t, be.NTT(x, mode.inverse, mode.coset))
			require.Equal(t, -1, firstDiff(x, want), "2^%d inverse=%v coset=%v: first differing element", k, mode.inverse, mode.coset)
		}
		t.Logf("NTT 2^%d: forward, inverse, coset, inverse coset equal the CPU's", k)
	}
}

func TestHMatchesCPU(t *testing.T) {
	be := gpu(t)
	for _, k := range sizes(t) {
		n := 1 << k
		a, b, c := random(t, n), random(t, n), random(t, n)
		ca, cb, cc := append([]fr.Element(nil), a...), append([]fr.Element(nil), b...), append([]fr.Element(nil), c...)
		want := ntt.H(ca, cb, cc, runtime.GOMAXPROCS(0))
		got, err := be.H(a, b, c)
		require.NoError(t, err)
		require.Equal(t, -1, firstDiff(got, want), "h 2^%d", k)
		t.Logf("h 2^%d equals the CPU's", k)
	}
}

func TestHMSMMatchesCPU(t *testing.T) {
	be := gpu(t)
	defer be.Close()
	checkHMSM(t, be)
}

// cappedGPU is a backend whose cap (800 MiB, chunks of 2^19 points)
// keeps the sets of 2^16 points resident and streams those of 2^20 in
// two or three chunks (the plan keeps ~950 MiB free beside a resident set
// for partitions of 2^21 rows, which the sets of 2^20 + 9 points imply,
// and ~570 MiB for 2^17).
func cappedGPU(t *testing.T) *Backend {
	o := benchOptions()
	o.MaxDeviceMemory = 800 << 20
	return gpuWith(t, o)
}

// checkCapped checks that be streamed and that the library's count of
// what it held never passed the cap.
func checkCapped(t *testing.T, be *Backend) {
	m, err := be.Memory(false)
	require.NoError(t, err)
	require.Positive(t, be.StreamedChunks(), "sets streamed under the cap")
	require.LessOrEqual(t, m.Peak, m.Cap, "device memory held never passed the cap")
	require.LessOrEqual(t, m.Pool, m.Held, "the MSM pool's reservation is part of what is held")
	require.Positive(t, be.StreamedBytes(), "streamed bytes counted")
	require.Positive(t, be.StreamedCopyTime(), "the streamed copies timed")
	t.Logf("under a cap of %d MiB: peak held %d MiB, %d chunks streamed", m.Cap>>20, m.Peak>>20, be.StreamedChunks())
}

// A set streamed in chunks (cuzk_cuda_stream_msm with set_n): the device
// keeps its bucket sums across the chunks and returns the whole set's MSM
// with the last one (the identity with the others), equal to gnark-crypto's
// — for every kind of scalars, a chunk of zeros in the middle, the set's
// window size (10 bits for 9·2^14 + 123 points) above the chunk's (8 bits
// for 2^14), and with the windows in passes; chunks out of order, and the
// rest of a set after a refusal, are refused.
func TestStreamedSetMatchesCPU(t *testing.T) {
	be := gpu(t)
	defer be.Close()
	const chunk, n = 1 << 14, 9<<14 + 123
	p1, p2 := testPoints(t, n), testPointsG2(t, n)
	kinds := scalarKinds(t, n)
	gap := append([]fr.Element(nil), kinds["uniform"]...)
	clear(gap[3*chunk : 4*chunk]) // an all-zero chunk: nothing added, the set goes on
	kinds["zero chunk"] = gap
	for _, limit := range []int{0, 3 * chunk} { // 0: one pass; 3·2^14 pairs: three windows a pass
		o := benchOptions()
		o.MSMMaxPairs = uint64(limit)
		require.NoError(t, be.lib.SetOptions(be.dev, o))
		for name, sc := range kinds {
			t.Run(fmt.Sprintf("%s/%d", name, limit), func(t *testing.T) {
				checkStreamedSet(t, be.g1.store.(streamStore[bls.G1Affine, bls.G1Jac]), p1, sc, chunk, cpuG1(t, p1, sc))
				checkStreamedSet(t, be.g2.store.(streamStore[bls.G2Affine, bls.G2Jac]), p2, sc, chunk, cpuG2(t, p2, sc))
			})
		}
	}
	require.NoError(t, be.lib.SetOptions(be.dev, benchOptions()))
}

func checkStreamedSet[P any, R any, PR interface {
	*R
	Equal(*R) bool
}](t *testing.T, ss streamStore[P, R], pts []P, sc []fr.Element, chunk int, want R) {
	n := len(pts)
	st, err := ss.newStream(chunk)
	require.NoError(t, err)
	defer ss.freeStream(st)
	dev, err := ss.uploadScalars(sc)
	require.NoError(t, err)
	defer ss.freeScalars(dev)
	var zero R
	for k := 0; k*chunk < n; k++ {
		part := pts[k*chunk : min(n, (k+1)*chunk)]
		require.NoError(t, ss.put(st, k%2, part))
		got, err := ss.streamMSM(st, k%2, dev, k*chunk, len(part), n)
		require.NoError(t, err)
		if (k+1)*chunk < n {
			require.True(t, PR(&got).Equal(&zero), "chunk %d of a set: the identity until the last", k)
		} else {
			require.True(t, PR(&got).Equal(&want), "the set's MSM with its last chunk")
		}
	}
	// out of order: chunk 2 after chunk 0, then chunk 1 of the abandoned set
	require.NoError(t, ss.put(st, 0, pts[:chunk]))
	_, err = ss.streamMSM(st, 0, dev, 0, chunk, n)
	require.NoError(t, err)
	require.NoError(t, ss.put(st, 1, pts[2*chunk:3*chunk]))
	_, err = ss.streamMSM(st, 1, dev, 2*chunk, chunk, n)
	require.ErrorContains(t, err, "in order")
	require.NoError(t, ss.put(st, 1, pts[chunk:2*chunk]))
	_, err = ss.streamMSM(st, 1, dev, chunk, chunk, n)
	require.ErrorContains(t, err, "in order", "a refused set stays closed")
	_, err = ss.streamMSM(st, 1, dev, chunk, chunk, chunk+chunk/2)
	require.ErrorContains(t, err, "a chunk of", "a chunk past the set's end")
	// a set of one chunk, and the same streamer again: the buckets reused
	require.NoError(t, ss.put(st, 0, pts[:chunk]))
	got, err := ss.streamMSM(st, 0, dev, 0, chunk, chunk)
	require.NoError(t, err)
	alone, err := ss.streamMSM(st, 0, dev, 0, chunk, 0)
	require.NoError(t, err)
	require.True(t, PR(&got).Equal(&alone), "a one-chunk set equals the chunk's MSM alone")
	t.Logf("a set of %d points in chunks of %d equals MultiExp; chunks out of order refused", n, chunk)
}

// Under a device-memory cap the sets that do not fit stream through the
// device (G1 query sets, B_G2, H over h kept on the device): the same
// results, never above the cap.
func TestCappedMatchesCPU(t *testing.T) {
	be := cappedGPU(t)
	defer be.Close()
	checkHMSM(t, be)
	// before checkQueryMSMs, which frees the resident sets after each
	// density (Close)
	be.mem.mu.Lock()
	resident := len(be.g1.sets) + len(be.g2.sets)
	be.mem.mu.Unlock()
	require.Positive(t, resident, "the small sets stay resident beside the streamed ones")
	checkQueryMSMs(t, be)
	checkCapped(t, be)
}

// Under a cap that keeps L resident and streams A, B_G1 and B_G2 (2^20:
// 900 MiB), a partition's second query MSMs find the first chunks of A
// and of B_G2 staged during L's MSM, while a, b, c are prefetched beside
// them (Prefetch reads the query stage's vectors with the device's count):
// the same results as the CPU's, the count never past the cap.
func TestQueryStagingMatchesCPU(t *testing.T) {
	if !slices.Contains(sizes(t), 20) {
		t.Skip("needs 2^20 in CUZK_CUDA_SIZES")
	}
	o := benchOptions()
	o.MaxDeviceMemory = 900 << 20
	be := gpuWith(t, o)
	defer be.Close()
	n := 1 << 20
	require.NoError(t, be.CheckRows(n)) // the plan for partitions of 2^20 rows, as the engine makes it
	pts := testPoints(t, n)
	ptsA, ptsB := slices.Clone(pts), slices.Clone(pts) // sets of their own (a set is known by its slice)
	ptsH := testPoints(t, n-1)
	g2 := testPointsG2(t, n)
	all := r1cs.NewBitmap(n)
	for i := range n {
		all.Set(i)
	}
	for run := range 2 {
		aux := random(t, n)
		a, bb, c := random(t, n), random(t, n), random(t, n)
		ca, cb, cc := slices.Clone(a), slices.Clone(bb), slices.Clone(c)
		q := &backend.QueryInput{Aux: aux, AAux: &all, BAux: &all, BInput: &r1cs.Bitmap{}, L: pts, A: ptsA, BG1: ptsB, BG2: g2}
		pre := be.newPrefetch(aux) // aux not prefetched: the query MSMs upload it
		q.Prefetch = pre
		pre.BeginRegion(0) // as the engine announces a region before its a, b, c go up
		prefetched := make(chan struct{})
		go func() { defer close(prefetched); pre.ABC(a, bb, c) }()
		out, err := be.QueryMSMs(q)
		require.NoError(t, err)
		<-prefetched
		want := cpuG1(t, pts, aux)
		for name, got := range map[string]bls.G1Jac{"l": out.L, "a": out.A, "b_g1": out.B1} { // the same scalars over copies of the same points
			require.True(t, want.Equal(&got), "run %d: %s", run, name)
		}
		want2 := cpuG2(t, g2, aux)
		require.True(t, want2.Equal(&out.B2), "run %d: b_g2", run)
		h, _, _, err := be.HMSM(ptsH, a, bb, c, pre)
		require.NoError(t, err)
		pre.Release()
		wantH := cpuG1(t, ptsH, ntt.H(ca, cb, cc, runtime.GOMAXPROCS(0)))
		require.True(t, wantH.Equal(&h), "run %d: h", run)
	}
	require.True(t, be.g1.resident(pts), "L resident")
	require.False(t, be.g1.resident(ptsA), "A streamed")
	require.False(t, be.g2.resident(g2), "B_G2 streamed")
	ch := be.Chunks()
	require.Positive(t, ch.StagedG1, "A's first chunk staged during L")
	require.Positive(t, ch.StagedG2, "B_G2's first chunk staged during L")
	require.Less(t, ch.StagedG1+ch.StagedG2, ch.Streamed, "staged chunks are among the streamed ones")
	p := be.Prefetches()
	t.Logf("a, b, c prefetches beside the query MSMs: %d whole, %d a alone, %d refused; the last decided on %+v", p.Whole, p.AOnly, p.Refused, p.Last)
	require.EqualValues(t, 900<<20, p.Last.Cap, "the last decision's count: the cap")
	require.LessOrEqual(t, p.Last.Pool, p.Last.Held, "the pool's reservation is part of what is held")
	require.LessOrEqual(t, p.Last.Held, p.Last.Cap)
	require.EqualValues(t, 2, p.Whole+p.AOnly+p.Refused, "each prefetch counted once")
	checkCapped(t, be)
}

// a, b, c prefetched whole or a alone (b and c then go up when HMSM takes
// the handle: cuzk_cuda_abc_add), into the resident H MSM and, under a cap,
// the streamed one: the same h MSM as the CPU's.
func TestPrefetchedABCMatchesCPU(t *testing.T) {
	for _, capped := range []bool{false, true} {
		var be *Backend
		if capped {
			be = cappedGPU(t)
		} else {
			be = gpu(t)
		}
		runs := uint64(0)
		for _, k := range sizes(t) {
			if k > 20 {
				continue
			}
			runs++
			n := 1 << k
			pts := testPoints(t, n-1)
			for _, aOnly := range []bool{false, true} {
				a, b, c := random(t, n), random(t, n), random(t, n)
				ca, cb, cc := append([]fr.Element(nil), a...), append([]fr.Element(nil), b...), append([]fr.Element(nil), c...)
				want := cpuG1(t, pts, ntt.H(ca, cb, cc, runtime.GOMAXPROCS(0)))
				pre := be.newPrefetch(nil)
				pre.prefetchABC(a, b, c, aOnly)
				got, _, _, err := be.HMSM(pts, a, b, c, pre)
				require.NoError(t, err)
				require.True(t, want.Equal(&got), "h MSM 2^%d, capped %v, a alone %v", k, capped, aOnly)
				require.Nil(t, pre.abc, "HMSM took the prefetch")
				pre.Release()
			}
			t.Logf("h MSM 2^%d (capped %v) over a, b, c prefetched whole and a alone equals the CPU's", k, capped)
			if capped && k == 20 { // H streamed: from its second MSM on, its first chunk staged during h
				require.Positive(t, be.g1.stagedChunks.Load(), "H's first chunk staged")
			}
		}
		p := be.Prefetches()
		require.Equal(t, [3]uint64{runs, runs, 0}, [3]uint64{p.Whole, p.AOnly, p.Refused}, "each prefetch counted by its outcome")
		be.Close()
	}
}

// Under a cap that holds h's a and one of b and c beside the twiddle
// tables and the stream buffers, but not all three (devmem.go's lean: 2^27
// under 16 GiB), h takes b and c from the host one after the other
// (cuzk_cuda_h_abc_lean_scalars), with a uploaded alone or prefetched
// alone: the same h MSM as the CPU's, the count never past the cap.
func TestLeanHMatchesCPU(t *testing.T) {
	k := 0
	for _, s := range sizes(t) {
		if s <= 20 {
			k = max(k, s)
		}
	}
	if k < 16 {
		t.Skip("needs a size from 2^16 to 2^20 in CUZK_CUDA_SIZES")
	}
	n := 1 << k
	var plan memPlan
	for c := uint64(64 << 20); c < 4<<30; c += 1 << 20 {
		if p := newMemPlan(c).fitted(n); p.lean(n) && p.streamedNeed(n)+8<<20 <= c {
			plan = p
			break
		}
	}
	require.NotZero(t, plan.cap, "a cap that makes h lean at 2^%d", k)
	o := benchOptions()
	o.MaxDeviceMemory = plan.cap
	be := gpuWith(t, o)
	defer be.Close()
	require.NoError(t, be.CheckRows(n))
	pts := testPoints(t, n-1)
	for _, aOnly := range []bool{false, true} {
		a, b, c := random(t, n), random(t, n), random(t, n)
		ca, cb, cc := slices.Clone(a), slices.Clone(b), slices.Clone(c)
		want := cpuG1(t, pts, ntt.H(ca, cb, cc, runtime.GOMAXPROCS(0)))
		var pre backend.Prefetch // nil: a uploaded by HMSM
		if aOnly {
			p := be.newPrefetch(nil)
			require.True(t, p.prefetchABC(a, b, c, true))
			pre = p
		}
		got, _, _, err := be.HMSM(pts, a, b, c, pre)
		require.NoError(t, err)
		require.True(t, want.Equal(&got), "lean h MSM 2^%d, a prefetched alone %v", k, aOnly)
		if pre != nil {
			pre.Release()
		}
	}
	require.False(t, be.g1.resident(pts), "H streamed")
	t.Logf("lean h MSM 2^%d under a cap of %d MiB equals the CPU's", k, plan.cap>>20)
	checkCapped(t, be)
}

// Misuse of an a, b, c handle at the C boundary is refused with a clear
// error, the handle still freeable: b without c, b and c added to a handle
// that has them, or added as NULL.
func TestABCHandleMisuseRefused(t *testing.T) {
	be := gpu(t)
	defer be.Close()
	a, b, c := random(t, 1<<10), random(t, 1<<10), random(t, 1<<10)
	_, err := be.uploadABC(a, nil, c)
	require.ErrorContains(t, err, "b and c are both given or both NULL")
	whole, err := be.uploadABC(a, b, c)
	require.NoError(t, err)
	require.ErrorContains(t, be.addBC(whole, b, c), "uploaded already")
	be.freeABC(&abcPrefetch{h: whole})
	alone, err := be.uploadABC(a, nil, nil)
	require.NoError(t, err)
	require.ErrorContains(t, be.addBC(alone, nil, c), "NULL handle, b or c")
	require.NoError(t, be.addBC(alone, b, c), "the refusal left the handle usable")
	be.freeABC(&abcPrefetch{h: alone})

	// the lean h takes a handle holding a alone, and b and c (consumed
	// on every path)
	lean := func(h unsafe.Pointer, bb, cc []fr.Element) error {
		_, err := be.hScalars(h, 1<<10, bb, cc, true)
		return err
	}
	whole, err = be.uploadABC(a, b, c)
	require.NoError(t, err)
	require.ErrorContains(t, lean(whole, b, c), "holds more than a")
	alone, err = be.uploadABC(a, nil, nil)
	require.NoError(t, err)
	require.ErrorContains(t, lean(alone, nil, c), "consts, b or c is NULL")
}

func checkHMSM(t *testing.T, be *Backend) {
	for _, k := range sizes(t) {
		if k > 20 {
			continue
		}
		n := 1 << k
		a, b, c := random(t, n), random(t, n), random(t, n)
		pts := testPoints(t, n-1)
		ca, cb, cc := append([]fr.Element(nil), a...), append([]fr.Element(nil), b...), append([]fr.Element(nil), c...)
		want := cpuG1(t, pts, ntt.H(ca, cb, cc, runtime.GOMAXPROCS(0)))
		got, _, _, err := be.HMSM(pts, a, b, c, nil)
		require.NoError(t, err)
		require.True(t, want.Equal(&got), "h MSM 2^%d", k)
		t.Logf("h MSM 2^%d (h kept on the device) equals the CPU's h and MultiExp", k)
	}
}

// The prep on the device: aux uploaded once, the A and B scalars selected
// with density bitmaps on the GPU, the four query MSMs over them.
func TestQueryMSMsMatchCPU(t *testing.T) {
	be := gpu(t)
	defer be.Close()
	checkQueryMSMs(t, be)
}

func checkQueryMSMs(t *testing.T, be *Backend) {
	for _, k := range sizes(t) {
		if k > 20 {
			continue
		}
		n := 1 << k
		for _, density := range []float64{0, 0.03, 0.5, 1} {
			inputs, aux := random(t, 3), random(t, n+5) // a last bitmap word left partial
			for i := range aux {
				if i%3 != 0 {
					aux[i].SetUint64(uint64(i & 1))
				}
			}
			bm := func(m int) *r1cs.Bitmap {
				b := r1cs.NewBitmap(m)
				x := uint64(k)*1000 + uint64(density*100)
				for i := 0; i < m; i++ {
					x = x*6364136223846793005 + 1442695040888963407
					if float64(x>>11)/float64(1<<53) < density {
						b.Set(i)
					}
				}
				return &b
			}
			q := &backend.QueryInput{Inputs: inputs, Aux: aux, BInput: bm(3), AAux: bm(len(aux)), BAux: bm(len(aux))}
			sel := func(head []fr.Element, hb *r1cs.Bitmap, bits *r1cs.Bitmap) []fr.Element {
				var out []fr.Element
				for i := range head {
					if hb == nil || hb.Get(i) {
						out = append(out, head[i])
					}
				}
				for i := range aux {
					if bits.Get(i) {
						out = append(out, aux[i])
					}
				}
				return out
			}
			aS, bS := sel(inputs, nil, q.AAux), sel(inputs, q.BInput, q.BAux)
			pts := testPoints(t, len(aux)+4) // B's selection starts one point in
			q.L, q.A, q.BG1 = pts[:len(aux)], pts[:len(aS)], pts[1:1+len(bS)]
			q.BG2 = testPointsG2(t, len(bS))
			out, err := be.QueryMSMs(q)
			require.NoError(t, err)
			for name, c := range map[string]struct {
				pts []bls.G1Affine
				sc  []fr.Element
				got bls.G1Jac
			}{"l": {q.L, aux, out.L}, "a": {q.A, aS, out.A}, "b_g1": {q.BG1, bS, out.B1}} {
				want := cpuG1(t, c.pts, c.sc)
				require.True(t, want.Equal(&c.got), "2^%d density %g: %s", k, density, name)
			}
			want2 := cpuG2(t, q.BG2, bS)
			require.True(t, want2.Equal(&out.B2), "2^%d density %g: b_g2", k, density)
			be.Close()
		}
		t.Logf("query MSMs 2^%d (prep on the device, densities 0, 3%%, 50%%, 100%%) equal the CPU's", k)
	}
}

func TestProofWithCUDABackendVerifies(t *testing.T) {
	t.Run("host prep", func(t *testing.T) { proveAndCompare(t, false) })
	t.Run("device prep", func(t *testing.T) { proveAndCompare(t, true) })
}

func proveAndCompare(t *testing.T, devicePrep bool) {
	be := gpu(t)
	defer be.Close()
	plan := groth16.NewPlan(groth16.Plan{Device: be, DevicePrep: devicePrep, G2OnGPU: true})
	cs, w, err := synthetic.Generate(synthetic.Spec{Constraints: 1 << 16, DenseFraction: 0.2, Seed: 7})
	require.NoError(t, err)
	pk, err := groth16.Setup(cs, 11)
	require.NoError(t, err)
	n := cs.DomainSize()
	asg := &groth16.Assignment{A: make([]fr.Element, n), B: make([]fr.Element, n), C: make([]fr.Element, n),
		Inputs: w.Inputs, Aux: w.Aux, Density: &cs.Density}
	require.NoError(t, cs.Eval(w, asg.A, asg.B, asg.C, r1cs.EvalOptions{}))
	var r, s fr.Element
	r.SetUint64(5)
	s.SetUint64(6)
	cpuAsg := *asg
	cpuAsg.A, cpuAsg.B, cpuAsg.C = append([]fr.Element(nil), asg.A...), append([]fr.Element(nil), asg.B...), append([]fr.Element(nil), asg.C...)
	proof, _, err := groth16.ProveAssignment(pk, asg, groth16.Options{R: &r, S: &s, Plan: plan})
	require.NoError(t, err)
	require.NoError(t, groth16.Verify(&pk.VerifyingKey, proof, w.Inputs[1:]))
	want, _, err := groth16.ProveAssignment(pk, &cpuAsg, groth16.Options{R: &r, S: &s})
	require.NoError(t, err)
	require.Equal(t, want.Bytes(), proof.Bytes(), "same r, s: the CUDA backend's proof equals the CPU's, byte for byte")
}

// benchCPU says whether the bench tables time the CPU beside the GPU
// (CUZK_CUDA_BENCH_CPU=0 leaves it out: the experiments compare GPU figures).
func benchCPU() bool { return os.Getenv("CUZK_CUDA_BENCH_CPU") != "0" }

// TestBenchTable prints the GPU/CPU timing table (CUZK_CUDA_BENCH=1).
func TestBenchTable(t *testing.T) {
	if os.Getenv("CUZK_CUDA_BENCH") == "" {
		t.Skip("CUZK_CUDA_BENCH not set")
	}
	be := gpu(t)
	fmt.Printf("\n| NTT size | GPU (ms, median of 9, device-resident) | CPU %d cores (ms) | ratio |\n|---|---:|---:|---:|\n", runtime.GOMAXPROCS(0))
	for _, k := range []int{20, 24, 26} {
		n := 1 << k
		ms, err := be.BenchNTT(n, 9)
		skipNoBench(t, err)
		require.NoError(t, err)
		cpuCol := "— | —"
		if benchCPU() {
			x, d := random(t, n), ntt.Domain(n)
			cpuMs := elapsedMs(t, func() error { d.FFT(x, fft.DIF); return nil })
			cpuCol = fmt.Sprintf("%.1f | %.0f×", cpuMs, cpuMs/ms)
		}
		fmt.Printf("| 2^%d | %.2f | %s |\n", k, ms, cpuCol)
	}
	for _, k := range []int{20, 24} {
		n := 1 << k
		a, b, c := random(t, n), random(t, n), random(t, n)
		gpuMs := elapsedMs(t, func() error { _, err := be.H(a, b, c); return err })
		cpuCol := "— | —"
		if benchCPU() {
			a, b, c = random(t, n), random(t, n), random(t, n)
			cpuMs := elapsedMs(t, func() error { ntt.H(a, b, c, runtime.GOMAXPROCS(0)); return nil })
			cpuCol = fmt.Sprintf("%.1f | %.1f×", cpuMs, cpuMs/gpuMs)
		}
		fmt.Printf("| h (7 NTTs + pointwise, host to host) 2^%d | %.1f | %s |\n", k, gpuMs, cpuCol)
	}
}

// testPoints returns n G1 points: 4096 distinct random ones, tiled (MSM
// correctness does not need distinct points; repeated ones are a case).
func testPoints(t testing.TB, n int) []bls.G1Affine {
	base := min(n, 4096)
	_, _, g1, _ := bls.Generators()
	s := random(t, base)
	distinct := bls.BatchScalarMultiplicationG1(&g1, s)
	out := make([]bls.G1Affine, n)
	for i := range out {
		out[i] = distinct[i%base]
	}
	return out
}

// testPointsG2 is testPoints for G2, with 1024 distinct points.
func testPointsG2(t testing.TB, n int) []bls.G2Affine {
	base := min(n, 1024)
	_, _, _, g2 := bls.Generators()
	distinct := bls.BatchScalarMultiplicationG2(&g2, random(t, base))
	out := make([]bls.G2Affine, n)
	for i := range out {
		out[i] = distinct[i%base]
	}
	return out
}

// cpuG1 and cpuG2 are the references: gnark-crypto's MultiExp.
func cpuG1(t *testing.T, pts []bls.G1Affine, sc []fr.Element) bls.G1Jac {
	var r bls.G1Jac
	_, err := r.MultiExp(pts, sc, ecc.MultiExpConfig{})
	require.NoError(t, err)
	return r
}

func cpuG2(t *testing.T, pts []bls.G2Affine, sc []fr.Element) bls.G2Jac {
	var r bls.G2Jac
	_, err := r.MultiExp(pts, sc, ecc.MultiExpConfig{})
	require.NoError(t, err)
	return r
}

// scalarKinds are the scalar vectors every MSM is checked with: uniform,
// all zero, all one, all r − 1, around (r − 1)/2 (where the signed digits
// switch to r − k), and boolean-heavy (95% zeros and ones).
func scalarKinds(t *testing.T, n int) map[string][]fr.Element {
	fill := func(f func(i int, v *fr.Element)) []fr.Element {
		v := make([]fr.Element, n)
		for i := range v {
			f(i, &v[i])
		}
		return v
	}
	var half fr.Element // (r − 1)/2
	half.SetOne()
	half.Neg(&half)
	var two fr.Element
	two.SetUint64(2)
	two.Inverse(&two)
	half.Mul(&half, &two)
	boolean := random(t, n)
	for i := range boolean {
		if i%20 != 0 {
			boolean[i].SetUint64(uint64(i & 1))
		}
	}
	return map[string][]fr.Element{
		"uniform": random(t, n),
		"zeros":   make([]fr.Element, n),
		"ones":    fill(func(_ int, v *fr.Element) { v.SetOne() }),
		"max":     fill(func(_ int, v *fr.Element) { v.SetOne(); v.Neg(v) }),
		"half": fill(func(i int, v *fr.Element) { // (r − 1)/2 + {0, 1, −1}
			one := fr.One()
			switch i % 3 {
			case 0:
				*v = half
			case 1:
				v.Add(&half, &one)
			case 2:
				v.Sub(&half, &one)
			}
		}),
		"boolean-heavy": boolean,
	}
}

func TestMSMG1MatchesCPU(t *testing.T) {
	be := gpu(t)
	defer be.Close()
	for _, k := range sizes(t) {
		n := 1 << k
		pts := testPoints(t, n)
		for name, sc := range scalarKinds(t, n) {
			want := cpuG1(t, pts, sc)
			got, _, err := be.MSMG1(pts, sc)
			require.NoError(t, err)
			require.True(t, want.Equal(&got), "2^%d %s", k, name)
		}
		// Points at infinity among the inputs.
		withInf := append([]bls.G1Affine(nil), pts...)
		for i := 0; i < n; i += 7 {
			withInf[i].SetInfinity()
		}
		sc := random(t, n)
		want := cpuG1(t, withInf, sc)
		got, _, err := be.MSMG1(withInf, sc)
		require.NoError(t, err)
		require.True(t, want.Equal(&got), "2^%d with points at infinity", k)
		t.Logf("G1 MSM 2^%d: uniform, zeros, ones, max, half, boolean-heavy, infinity points equal gnark-crypto's MultiExp", k)
	}
}

// The accumulation's fallback, taken when the XYZZ piece sums get no
// buffer (k_subsum converting each piece's sum in its branch), forced by
// the bench build's switch: G1 and G2 MSMs of every scalar kind equal
// gnark-crypto's, resident and streamed in chunks.
func TestMSMBranchConvertMatchesCPU(t *testing.T) {
	be := gpu(t)
	defer be.Close()
	if err := be.lib.forceBranchConvert(true); errors.Is(err, ErrNoBench) {
		t.Skip("needs a bench build of libcuzk_cuda.so (make -C cuda BENCH=1)")
	}
	defer func() { require.NoError(t, be.lib.forceBranchConvert(false)) }()
	const k = 16
	n := 1 << k
	pts, g2pts := testPoints(t, n), testPointsG2(t, n)
	for name, sc := range scalarKinds(t, n) {
		checkBothGroups(t, be, pts, g2pts, sc, nil, fmt.Sprintf("2^%d %s", k, name))
	}
	capped := cappedGPU(t)
	defer capped.Close()
	checkHMSM(t, capped) // H streamed in chunks at 2^20 under the cap
	require.Positive(t, capped.StreamedChunks(), "chunks streamed with the fallback forced")
	t.Logf("MSMs 2^%d with piece sums converted in k_subsum's branch equal gnark-crypto's (G1, G2, every scalar kind; streamed h MSMs too)", k)
}

// An MSM pass whose scratch is refused mid-pass (after its sort: memory
// another thread took after the plan) runs again with half its windows,
// forced twice an MSM by the bench build's switch: G1 and G2 MSMs of every
// scalar kind still equal gnark-crypto's, and every refusal was used.
func TestMSMPassRetryMatchesCPU(t *testing.T) {
	be := gpu(t)
	defer be.Close()
	if _, err := be.lib.refusePassScratch(0); errors.Is(err, ErrNoBench) {
		t.Skip("needs a bench build of libcuzk_cuda.so (make -C cuda BENCH=1)")
	}
	const k = 16
	n := 1 << k
	pts, g2pts := testPoints(t, n), testPointsG2(t, n)
	refuseTwo := func() {
		_, err := be.lib.refusePassScratch(2)
		require.NoError(t, err)
	}
	for name, sc := range scalarKinds(t, n) {
		checkBothGroups(t, be, pts, g2pts, sc, refuseTwo, fmt.Sprintf("2^%d %s, two passes refused", k, name))
		if name == "uniform" { // every window dense: passes of many windows to halve
			left, err := be.lib.refusePassScratch(0)
			require.NoError(t, err)
			require.Zero(t, left, "both refusals met a pass of several windows")
		}
	}
	_, err := be.lib.refusePassScratch(0)
	require.NoError(t, err)
	t.Logf("MSMs 2^%d with two passes refused mid-pass each equal gnark-crypto's (G1, G2, every scalar kind)", k)
}

// checkBothGroups compares be's G1 MSM of sc over pts and its G2 MSM over
// g2pts with gnark-crypto's; before, when not nil, runs ahead of each MSM;
// label names the case in the messages.
func checkBothGroups(t *testing.T, be *Backend, pts []bls.G1Affine, g2pts []bls.G2Affine, sc []fr.Element, before func(), label string) {
	t.Helper()
	if before != nil {
		before()
	}
	want := cpuG1(t, pts, sc)
	got, _, err := be.MSMG1(pts, sc)
	require.NoError(t, err)
	require.True(t, want.Equal(&got), "G1 %s", label)
	if before != nil {
		before()
	}
	want2 := cpuG2(t, g2pts, sc)
	got2, _, err := be.MSMG2(g2pts, sc, 0)
	require.NoError(t, err)
	require.True(t, want2.Equal(&got2), "G2 %s", label)
}

// An MSM whose pairs do not fit the device memory runs its windows in
// passes; the msm_max_pairs option forces that here: n/4 pairs a pass (one
// window at a time for every scalar kind) and 3n (three windows of uniform
// scalars, the 0/1-heavy ones in one pass).
func TestMSMInPassesMatchesCPU(t *testing.T) {
	be := gpu(t)
	defer be.Close()
	const k = 16
	n := 1 << k
	pts, g2pts := testPoints(t, n), testPointsG2(t, n)
	for _, limit := range []int{n / 4, 3 * n} {
		o := benchOptions()
		o.MSMMaxPairs = uint64(limit)
		require.NoError(t, be.lib.SetOptions(be.dev, o))
		for name, sc := range scalarKinds(t, n) {
			checkBothGroups(t, be, pts, g2pts, sc, nil, fmt.Sprintf("2^%d %s, %d pairs a pass", k, name, limit))
		}
		t.Logf("MSMs 2^%d with at most %d pairs a pass equal gnark-crypto's MultiExp (G1, G2, every scalar kind)", k, limit)
	}
	require.NoError(t, be.lib.SetOptions(be.dev, benchOptions()))
}

// TestBenchMSM prints the MSM tables (CUZK_CUDA_BENCH=1).
func TestBenchMSM(t *testing.T) {
	if os.Getenv("CUZK_CUDA_BENCH") == "" {
		t.Skip("CUZK_CUDA_BENCH not set")
	}
	be := gpu(t)
	defer be.Close()
	g1Sizes, g2Sizes := []int{20, 22, 24, 26}, []int{20, 22, 24}
	if env := os.Getenv("CUZK_CUDA_BENCH_G1"); env != "" { // one G1 size, no G2 (window-size sweeps)
		k, err := strconv.Atoi(env)
		require.NoError(t, err)
		g1Sizes, g2Sizes = []int{k}, nil
	}
	msmTable(t, "G1", g1Sizes, 24, func(n int, withCPU bool) (gpuMs, cpuMs float64) {
		defer be.Close() // this size's points leave the device
		pts := testPoints(t, n)
		gpuMs, err := be.BenchMSMG1(pts, 5)
		skipNoBench(t, err)
		require.NoError(t, err)
		if withCPU {
			var r bls.G1Jac
			sc := random(t, n)
			cpuMs = elapsedMs(t, func() error { _, err := r.MultiExp(pts, sc, ecc.MultiExpConfig{}); return err })
		}
		return gpuMs, cpuMs
	})
	msmTable(t, "G2", g2Sizes, 22, func(n int, withCPU bool) (gpuMs, cpuMs float64) {
		defer be.Close()
		pts := testPointsG2(t, n)
		gpuMs, err := be.BenchMSMG2(pts, 5)
		skipNoBench(t, err)
		require.NoError(t, err)
		if withCPU {
			var r bls.G2Jac
			sc := random(t, n)
			cpuMs = elapsedMs(t, func() error { _, err := r.MultiExp(pts, sc, ecc.MultiExpConfig{}); return err })
		}
		return gpuMs, cpuMs
	})
}

// msmTable prints one MSM table: row(n, withCPU) times the GPU (median of
// 5, points resident, random device-side scalars) and, up to 2^cpuMax
// (CUZK_CUDA_BENCH_CPU_MAX overrides it), the CPU's MultiExp on the same
// points.
func msmTable(t *testing.T, group string, sizes []int, cpuMax int, row func(n int, withCPU bool) (gpuMs, cpuMs float64)) {
	if len(sizes) == 0 {
		return
	}
	fmt.Printf("\n| %s MSM size (uniform scalars) | GPU (ms, median of 5, points resident) | CPU %d cores (ms) | ratio |\n|---|---:|---:|---:|\n", group, runtime.GOMAXPROCS(0))
	if env := os.Getenv("CUZK_CUDA_BENCH_CPU_MAX"); env != "" { // the CPU column up to 2^k (2^26 takes ~1 min)
		k, err := strconv.Atoi(env)
		require.NoError(t, err)
		cpuMax = k
	}
	if !benchCPU() {
		cpuMax = 0
	}
	for _, k := range sizes {
		gpuMs, cpuMs := row(1<<k, k <= cpuMax)
		cpuCol := "— | —"
		if k <= cpuMax {
			cpuCol = fmt.Sprintf("%.0f | %.1f×", cpuMs, cpuMs/gpuMs)
		}
		fmt.Printf("| 2^%d | %.1f | %s |\n", k, gpuMs, cpuCol)
	}
}

// elapsedMs runs fn and returns its wall time in milliseconds.
func elapsedMs(t *testing.T, fn func() error) float64 {
	start := time.Now()
	require.NoError(t, fn())
	return float64(time.Since(start).Microseconds()) / 1000
}

func TestMSMG2MatchesCPU(t *testing.T) {
	be := gpu(t)
	defer be.Close()
	for _, k := range sizes(t) {
		if k > 20 {
			continue // the CPU reference is slow beyond
		}
		n := 1 << k
		pts := testPointsG2(t, n)
		for i := 0; i < n; i += 11 {
			pts[i].SetInfinity()
		}
		for name, sc := range scalarKinds(t, n) {
			want := cpuG2(t, pts, sc)
			got, _, err := be.MSMG2(pts, sc, 0)
			require.NoError(t, err)
			require.True(t, want.Equal(&got), "G2 2^%d %s", k, name)
		}
		t.Logf("G2 MSM 2^%d: uniform, zeros, ones, max, half, boolean-heavy scalars, points at infinity, equal gnark-crypto's MultiExp", k)
	}
}

// A set whose host pages were given back streams from its parameter
// file: each chunk read as the file stores it and converted on the device
// (cuzk_cuda_stream_put_file) gives the MSM of the points the file holds,
// gnark-crypto's over a copy read onto the heap, for G1 and G2; nothing
// is decoded onto the host, and such a set is not page-locked.
//
// A file in memory (/dev/shm) is not read: the sets are page-locked as the
// file's pages, mapped read-only, and each chunk is copied from them, with
// the same results.
func TestStreamedSetFromTheFile(t *testing.T) {
	be := gpu(t)
	defer be.Close()
	const chunk, n = 1 << 14, 9<<14 + 123
	g1, g2 := testPoints(t, 4099), testPointsG2(t, 1031)
	vk := &params.VerifyingKey{Alpha1: g1[0], Beta1: g1[1], Delta1: g1[2], Beta2: g2[0], Gamma2: g2[1], Delta2: g2[2], IC: g1[:3]}
	for _, dir := range []string{t.TempDir(), shmDir(t)} {
		mem := params.InMemory(dir)
		path := filepath.Join(dir, "tiled.params")
		require.NoError(t, params.WriteTiledFile(path, vk, params.TiledLayout{H: n, L: n, A: n, BG1: n, BG2: n}, g1, g2))
		ref, err := params.ReadProvingKey(path, params.Options{SkipSubgroupCheck: true})
		require.NoError(t, err)
		pk, err := params.ReadProvingKey(path, params.Options{SkipSubgroupCheck: true, OffHeap: true})
		require.NoError(t, err)
		pk.ReleaseHost(true)
		require.True(t, params.Released(span(pk.L)) && params.Released(span(pk.BG2)), "the host pages are given back")
		host := pk.HostBytes()
		ss1 := be.g1.store.(streamStore[bls.G1Affine, bls.G1Jac])
		ss2 := be.g2.store.(streamStore[bls.G2Affine, bls.G2Jac])
		if mem {
			require.NoError(t, ss1.pin(pk.L), "the file's pages locked")
			require.NoError(t, ss2.pin(pk.BG2))
		} else {
			require.ErrorIs(t, ss1.pin(pk.L), errFromFile)
		}
		before := be.Transfers()
		sc := random(t, n)
		checkStreamedSet(t, ss1, pk.L, sc, chunk, cpuG1(t, ref.L, sc))
		checkStreamedSet(t, ss2, pk.BG2, sc, chunk, cpuG2(t, ref.BG2, sc))
		require.Equal(t, host, pk.HostBytes(), "nothing decoded onto the host")
		after := be.Transfers()
		if mem {
			require.Equal(t, before.StreamedFileRead, after.StreamedFileRead, "%s: nothing read", dir)
			require.Greater(t, after.StreamedFileMapped, before.StreamedFileMapped, "%s: copied from the file's pages", dir)
			ss1.unpin(pk.L)
			ss2.unpin(pk.BG2)
			require.Empty(t, be.views.m, "unlocked")
		} else {
			require.Greater(t, after.StreamedFileRead, before.StreamedFileRead, "%s: the file's reads timed", dir)
			require.Equal(t, before.StreamedFileMapped, after.StreamedFileMapped)
		}
		runtime.KeepAlive(pk)
	}
}
