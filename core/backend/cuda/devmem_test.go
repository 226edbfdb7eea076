package cuda

import (
	"errors"
	"fmt"
	"math/bits"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/ntt"
	"github.com/cuzk/cuzk/core/params"
)

// cappedStore is a G1 device with a memory cap, made of host memory: it
// counts every allocation the kernels make — resident sets, scalar
// vectors, the two stream buffers, and an MSM's scratch while it runs (the
// plan's per-point and fixed figures, as cuda/ allocates them) — refuses
// any past the cap, as the library's own count does, and records the peak.
type cappedStore struct {
	mu         sync.Mutex
	cap, fixed uint64
	live, peak uint64
	refused    int
	pinned     int
	prepared   []int // prepareFile's sizes
}

var errCapped = errors.New("past the device memory cap")

func (f *cappedStore) alloc(n uint64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.live+n > f.cap {
		f.refused++
		return errCapped
	}
	f.live += n
	f.peak = max(f.peak, f.live)
	return nil
}

func (f *cappedStore) release(n uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.live -= n
}

func (f *cappedStore) scratch(points int) (func(), error) {
	n := uint64(points)*msmPerPoint + f.fixed
	if err := f.alloc(n); err != nil {
		return nil, err
	}
	return func() { f.release(n) }, nil
}

func (f *cappedStore) upload(points []bls.G1Affine) (any, error) {
	if err := f.alloc(uint64(len(points)) * g1Size); err != nil {
		return nil, err
	}
	cp := append([]bls.G1Affine(nil), points...)
	return &cp, nil
}

func (f *cappedStore) free(h any) { f.release(uint64(len(*h.(*[]bls.G1Affine))) * g1Size) }

func (f *cappedStore) msm(h any, scalars []fr.Element) (bls.G1Jac, error) {
	var r bls.G1Jac
	done, err := f.scratch(len(scalars))
	if err != nil {
		return r, err
	}
	defer done()
	_, err = r.MultiExp((*h.(*[]bls.G1Affine))[:len(scalars)], scalars, ecc.MultiExpConfig{})
	return r, err
}

func (f *cappedStore) checkSubgroup(any, int, int) (int, int, error) { return 0, -1, nil }

func (f *cappedStore) uploadScalars(v []fr.Element) (any, error) {
	if err := f.alloc(uint64(len(v)) * scalarSize); err != nil {
		return nil, err
	}
	cp := append([]fr.Element(nil), v...)
	return &cp, nil
}

func (f *cappedStore) freeScalars(h any) { f.release(uint64(len(*h.(*[]fr.Element))) * scalarSize) }

type fakeStream struct {
	chunk          int
	slot           [2][]bls.G1Affine
	copied, copyNs uint64 // since the last takeCopyStats: a microsecond a put
	// the open set's sum, as the kernels keep its buckets: its size (0:
	// none open), the next chunk's offset, the bytes its buckets take
	set, next int
	sum       bls.G1Jac
	accBytes  uint64
	puts      int
}

// The real streamers are two buffers of each group; this device holds the
// G2 pair's bytes too, so that the plan's figure is what it counts.
func (f *cappedStore) newStream(chunk int) (any, error) {
	if err := f.alloc(2 * uint64(chunk) * (g1Size + g2Size)); err != nil {
		return nil, err
	}
	return &fakeStream{chunk: chunk}, nil
}

func (f *cappedStore) put(st any, slot int, points []bls.G1Affine) error {
	s := st.(*fakeStream)
	if len(points) > s.chunk {
		return errors.New("chunk too large")
	}
	s.slot[slot] = append(s.slot[slot][:0], points...)
	s.puts++
	s.copied += uint64(len(points)) * g1Size
	s.copyNs += 1000
	return nil
}

// streamMSM keeps a set's sum across its chunks as the kernels keep its
// buckets (allocated when a set opens, kept for the next), and refuses
// chunks out of order.
func (f *cappedStore) streamMSM(st any, slot int, sc any, offset, n, setN int) (bls.G1Jac, error) {
	var r bls.G1Jac
	fs := st.(*fakeStream)
	if offset == 0 {
		if need := streamAcc(setN); need > fs.accBytes {
			if err := f.alloc(need - fs.accBytes); err != nil {
				return r, err
			}
			fs.accBytes = need
		}
		fs.set, fs.next, fs.sum = setN, 0, bls.G1Jac{}
	}
	if fs.set != setN || fs.next != offset || offset+n > setN {
		err := fmt.Errorf("chunk %d+%d of %d out of order (open set %d, next %d)", offset, n, setN, fs.set, fs.next)
		fs.set = 0 // abandoned, as the kernels abandon it
		return r, err
	}
	done, err := f.scratch(n)
	if err != nil {
		return r, err
	}
	defer done()
	s := (*sc.(*[]fr.Element))[offset : offset+n]
	if _, err = r.MultiExp(fs.slot[slot][:n], s, ecc.MultiExpConfig{}); err != nil {
		return bls.G1Jac{}, err
	}
	fs.sum.AddAssign(&r)
	if fs.next = offset + n; fs.next < setN {
		return bls.G1Jac{}, nil
	}
	fs.set = 0
	return fs.sum, nil
}

func (f *cappedStore) freeStream(st any) {
	f.release(2*uint64(st.(*fakeStream).chunk)*(g1Size+g2Size) + st.(*fakeStream).accBytes)
}

func (f *cappedStore) takeCopyStats(st any) (uint64, uint64) {
	s := st.(*fakeStream)
	b, ns := s.copied, s.copyNs
	s.copied, s.copyNs = 0, 0
	return b, ns
}

// pin locks a set on the host; one given back to a file on a disk (as
// the tests' are) streams from reads, unlocked, as deviceStore's does.
func (f *cappedStore) pin(p []bls.G1Affine) error {
	if params.Released(span(p)) {
		return errFromFile
	}
	f.pinned++
	return nil
}
func (f *cappedStore) unpin([]bls.G1Affine) { f.pinned-- }

// TestCapPlansResidentAndStreamedSets runs a partition's G1 MSMs (three
// query sets of n points with the partition's other vectors held, then H
// over h) on a capped fake device at caps from "everything resident" down
// to "everything streamed": every result equals the CPU's, no allocation
// is ever refused, the peak stays within the cap, and the sets the plan
// keeps resident shrink with the cap.
func TestCapPlansResidentAndStreamedSets(t *testing.T) {
	const n = 1 << 11
	sets := [][]bls.G1Affine{testPoints(t, n), testPoints(t, n), testPoints(t, n), testPoints(t, n-1)}
	sc := random(t, n)
	base := memPlan{chunk: 1 << 10, fixed: 4 << 10}
	setBytes := uint64(n) * g1Size
	caps := []struct {
		cap      uint64
		resident int
	}{
		{base.reserve(n) + 4*setBytes, 4},
		{base.reserve(n) + 2*setBytes, 2},
		{base.reserve(n) + setBytes, 1},
		{base.streamedNeed(n), 0},
	}
	for _, c := range caps {
		plan := base
		plan.cap = c.cap
		require.NoError(t, plan.check(n))
		store := &cappedStore{cap: c.cap, fixed: base.fixed}
		r := newResidency[bls.G1Affine, bls.G1Jac](store, &vram{budget: c.cap, plan: plan, rows: n})
		require.Equal(t, plan.chunk, r.chunkSize(), "a capped device streams chunks of the plan's size")
		for round := 0; round < 2; round++ {
			for i, pts := range sets {
				// the partition's other vectors beside the scalars the MSM
				// uploads: aux and one selection, or the twiddle tables
				held := uint64(2 * n * scalarSize)
				if i == 3 {
					held = n * scalarSize
				}
				require.NoError(t, store.alloc(held))
				got, err := r.msm(pts, sc[:len(pts)])
				store.release(held)
				require.NoError(t, err, "cap %d, set %d", c.cap, i)
				want := cpuG1(t, pts, sc[:len(pts)])
				require.True(t, want.Equal(&got), "cap %d, set %d", c.cap, i)
			}
		}
		require.Len(t, r.sets, c.resident, "resident sets under a cap of %d", c.cap)
		require.Zero(t, store.refused, "the plan never meets a refusal")
		require.LessOrEqual(t, store.peak, c.cap)
		var streamed int64
		for _, pts := range sets[c.resident:] {
			streamed += 2 * int64(len(pts)) * g1Size // two rounds
		}
		require.Equal(t, streamed, r.streamedBytes.Load(), "the bytes of the streamed sets, every round")
		if c.resident < len(sets) {
			require.Positive(t, r.streamedChunks.Load())
			require.Equal(t, r.streamedChunks.Load()*1000, r.copyNanos.Load(), "each streamed chunk's copy timed")
			require.Equal(t, len(sets)-c.resident, store.pinned, "each streamed set is page-locked once")
		}
		r.close()
		require.Zero(t, store.live, "close frees the resident sets and the stream buffers")
		require.Zero(t, store.pinned, "close unlocks the host sets")
	}
}

// A streamed set's first chunk put ahead (stage, where the link is idle)
// is used by the set's MSM in place of its first put; a chunk staged for
// another set is not (the MSM puts its own), nor is a resident set staged;
// every result equals the CPU's, staging never waits for a streamer in
// use, and freeing the streamer waits for a staged put.
func TestStagedFirstChunk(t *testing.T) {
	const n = 5<<10 + 7
	plan := memPlan{chunk: 1 << 10, fixed: 4 << 10}
	plan.cap = plan.reserve(2*n) + 200*g1Size // room for the small set alone
	store := &cappedStore{cap: plan.cap, fixed: plan.fixed}
	r := newResidency[bls.G1Affine, bls.G1Jac](store, &vram{budget: plan.cap, plan: plan, rows: 2 * n})
	small, x, y := testPoints(t, 100), testPoints(t, n), testPoints(t, n)
	sc := random(t, n)
	msm := func(pts []bls.G1Affine) {
		t.Helper()
		got, err := r.msm(pts, sc[:len(pts)])
		require.NoError(t, err)
		want := cpuG1(t, pts, sc[:len(pts)])
		require.True(t, want.Equal(&got))
	}
	msm(small) // resident
	require.True(t, r.resident(small))
	r.stage(x) // no streamer yet: nothing staged
	require.Nil(t, r.staged)
	msm(x) // makes the streamer
	require.False(t, r.resident(x), "the large sets stream")
	chunks := (n + plan.chunk - 1) / plan.chunk
	fs := r.st.(*fakeStream)
	puts := fs.puts
	require.Equal(t, chunks, puts)

	r.stage(x)
	msm(x)
	require.EqualValues(t, 1, r.stagedChunks.Load(), "x's staged chunk used")
	require.Equal(t, puts+chunks, fs.puts, "the staged put in place of the first")

	r.stage(y)
	msm(x)
	require.EqualValues(t, 1, r.stagedChunks.Load(), "y's chunk is not x's")
	require.Equal(t, puts+2*chunks+1, fs.puts, "x put its own first chunk")

	r.stage(small)
	require.Nil(t, r.staged, "a resident set is not staged")
	r.stMu.Lock() // the streamer in use (another partition's MSM): staging does not wait
	r.stage(y)
	r.stMu.Unlock()
	require.Nil(t, r.staged)
	r.stage(y)
	r.freeStreamer() // waits for the staged put
	require.Nil(t, r.staged)
	msm(y)
	r.close()
	require.Zero(t, store.live)
	require.Zero(t, store.refused)
}

// A partition that cannot run even streamed is refused before anything is
// allocated, with its numbers; the chunk follows the cap.
func TestCapRefusesWhatCannotFit(t *testing.T) {
	const GiB = 1 << 30
	for _, c := range []struct {
		cap   uint64
		chunk int
	}{{15 * GiB, 1 << 23}, {23 * GiB, 1 << 23}, {1 * GiB, 1 << 19}, {64 << 20, 1 << 16}, {512 * GiB, 1 << 23}} {
		require.Equal(t, c.chunk, newMemPlan(c.cap).chunk, "cap %d", c.cap)
	}
	p16, p24 := newMemPlan(16*GiB), newMemPlan(24*GiB)
	require.NoError(t, p16.check(1<<26))
	require.NoError(t, p24.check(1<<27))
	// 2^27 under 16 GiB: the h stage lean (12 GiB with the twiddle
	// tables) beside chunks of 2^22 points; under 12 GiB not even that
	require.False(t, p24.lean(1<<27), "24 GiB holds a, b and c beside the stream buffers")
	require.True(t, p16.lean(1<<27))
	require.False(t, p16.lean(1<<26))
	require.False(t, newMemPlan(0).lean(1<<27), "no cap: never lean")
	err := p16.check(1 << 27)
	require.ErrorIs(t, err, backend.ErrDeviceMemory)
	require.ErrorContains(t, err, "134217728 rows needs at least 17.4 GiB", "chunks of 2^23 points")
	require.ErrorContains(t, err, "gpus.max_device_memory is 16 GiB")
	// the larger stream buffers halved first: G2's on a tie of chunks
	for _, c := range []struct {
		cap    uint64
		g1, g2 int
		what   string
	}{
		{16 * GiB, 1 << 23, 1 << 22, "16 GiB by the library's count"},
		{15 * GiB, 1 << 22, 1 << 22, "15 GiB (measured on an H100: 3.60 s a partition)"},
		{0, 1 << 22, 1 << 21, "what gpus.max_device_memory = \"16GiB\" gives the library"},
	} {
		if c.cap == 0 {
			own, err := config.DeviceMemoryCap("16GiB", 80*GiB, 80*GiB)
			require.NoError(t, err)
			c.cap = own
		}
		f := newMemPlan(c.cap).fitted(1 << 27)
		require.Equal(t, c.g1, f.chunkOf(g1Size), c.what)
		require.Equal(t, c.g2, f.chunkOf(g2Size), c.what)
		require.NoError(t, f.check(1<<27), c.what)
		require.LessOrEqual(t, f.streamedNeed(1<<27), c.cap, c.what)
		require.True(t, f.lean(1<<27), c.what)
		larger := f
		larger.g2Chunk = 2 * f.chunkOf(g2Size)
		require.Greater(t, larger.streamedNeed(1<<27), c.cap, "%s: G2's chunk as large as fits", c.what)
	}
	require.Equal(t, p16, p16.fitted(1<<26), "a partition that fits keeps the cap's chunk")
	require.Equal(t, p24, p24.fitted(1<<27))
	f12 := newMemPlan(12 * GiB).fitted(1 << 27)
	require.Equal(t, minChunk, f12.chunk)
	require.ErrorContains(t, f12.check(1<<27), "gpus.max_device_memory is 12 GiB")
	require.NoError(t, newMemPlan(0).check(1<<30), "no cap, no refusal")
	// 2^26 under 24 GiB (the library given 23), the counts measured on the
	// H200 (2026-12-01, 06f14ed): L
	// resident (5.98 GiB), the stream buffers (4.71), the twiddle tables
	// (2), aux (2) and the MSM pool (3.78, whether an MSM uses it or not).
	// a, b, c are ready while the query MSMs run: with A's
	// selection held (2 GiB) and B's to come after it is freed, a alone
	// (2 GiB) fits, not a, b and c (6 GiB); counting a selection to come on
	// top of the one held refused a (the rule measured at bbdfab0).
	vec := uint64((1 << 26) * scalarSize)
	pool := uint64(378 * GiB / 100)
	held24 := uint64(598*GiB/100+471*GiB/100+4*GiB) + pool
	p23, p15 := newMemPlan(23*GiB), newMemPlan(15*GiB)
	duringA := queryStage{state: stageActive, live: vec, peak: vec}
	require.Zero(t, duringA.extra(1<<26))
	require.True(t, p23.prefetchFits(held24+vec, pool, vec, duringA.extra(1<<26), 1<<26, true))
	require.False(t, p23.prefetchFits(held24+vec, pool, vec, vec, 1<<26, true), "a selection counted twice")
	require.False(t, p23.prefetchFits(held24+vec, pool, 3*vec, 0, 1<<26, true))
	// no region announced (a direct caller): a selection to come
	require.Equal(t, vec, queryStage{}.extra(1<<26))
	require.True(t, p23.prefetchFits(held24, pool, vec, queryStage{}.extra(1<<26), 1<<26, true))
	require.False(t, p23.prefetchFits(held24, 0, vec, vec, 1<<26, true),
		"the pool's reservation not reported: an MSM's scratch over n points counted again beside it")
	require.True(t, p23.prefetchFits(held24-pool+1*GiB, 1*GiB, vec, vec, 1<<26, true),
		"a pool trimmed to 1 GiB: held is less by what L's next MSM grows it again")
	require.False(t, p23.prefetchFits(held24+GiB, pool, vec, vec, 1<<26, true), "another GiB held: no room for a")
	require.True(t, p23.prefetchFits(8*GiB, 0, 3*vec, vec, 1<<26, true), "first partition: L and aux held, the pool empty")
	// the stage's bytes still to come: aux uploaded by QueryMSMs beside the
	// larger selection, then what is left of them
	require.Equal(t, vec+2*vec, queryStage{state: stageActive, live: 0, peak: vec + 2*vec}.extra(1<<26))
	require.Equal(t, vec/2, queryStage{state: stageActive, live: vec, peak: vec + vec/2}.extra(1<<26))
	require.Zero(t, queryStage{state: stageActive, live: 2 * vec, peak: vec}.extra(1<<26), "live past the peak: nothing to come")
	require.Zero(t, queryStage{state: stageOver}.extra(1<<26), "the query MSMs done: nothing to come")
	// under 16 (15): no set resident, so the largest MSM is over a chunk of
	// 2^23 points, whose scratch the pool already holds (0.7 GiB): a alone
	// fits beside streamers, twiddles, aux and a selection, not a, b and c
	pool16 := uint64(7 * GiB / 10)
	held16 := uint64(471*GiB/100+4*GiB) + pool16
	require.True(t, p15.prefetchFits(held16+vec, pool16, vec, 0, 1<<26, false))
	require.False(t, p15.prefetchFits(held16+vec, pool16, 3*vec, 0, 1<<26, false))
	require.False(t, p15.prefetchFits(held16+vec, pool16, vec, 0, 1<<26, true),
		"a set resident: its MSM's scratch over 2^26 points would not fit beside a")
	require.True(t, newMemPlan(0).prefetchFits(1<<40, 0, 3*vec, vec, 1<<26, true), "no cap: a copy that does not fit fails and is dropped")
	// 2^26 under 16 GiB: no set of 2^26 G1 points (6 GiB) stays resident.
	require.False(t, p16.residentFits(0, (1<<26)*g1Size, 1<<26))
	require.True(t, p24.residentFits(0, (1<<26)*g1Size, 1<<26))
}

// With no room for the stream buffers (a cap the plan did not foresee, a
// device shared with another process), a set that does not stay resident
// goes through the device a chunk at a time instead: the same results,
// never a CPU fall-back, still within the cap.
func TestNoRoomForStreamBuffersFallsBackToChunks(t *testing.T) {
	const n = 1 << 10
	pts, sc := testPoints(t, n), random(t, n)
	plan := memPlan{chunk: 1 << 8, fixed: 1 << 10}
	plan.cap = plan.streamedNeed(n)
	// buffers of 2^8 points of both groups would take 147 KiB: leave less
	store := &cappedStore{cap: 3 * n * scalarSize, fixed: plan.fixed}
	r := newResidency[bls.G1Affine, bls.G1Jac](store, &vram{budget: plan.cap, plan: plan, rows: n})
	got, err := r.msm(pts, sc)
	require.NoError(t, err)
	want := cpuG1(t, pts, sc)
	require.True(t, want.Equal(&got))
	require.Nil(t, r.st, "no streamer was made")
	require.EqualValues(t, n/plan.chunk, r.streamedChunks.Load(), "chunks went through one at a time")
	require.LessOrEqual(t, store.peak, store.cap)

	// device scalars (the prep on the device) are brought back first
	dev, err := store.uploadScalars(sc)
	require.NoError(t, err)
	got, err = r.streamDevice(pts, dev, func() ([]fr.Element, error) { return *dev.(*[]fr.Element), nil })
	require.NoError(t, err)
	require.True(t, want.Equal(&got))
	store.freeScalars(dev)
	r.close()
	require.Zero(t, store.live)
}

// warmedStreamingSet warms a set of n points that streams in chunks of
// 2^8 on a fake device capped at what the plan needs for that, with
// scalars for its MSM.
func warmedStreamingSet(t *testing.T, n int) ([]bls.G1Affine, []fr.Element, memPlan, *cappedStore, *residency[bls.G1Affine, bls.G1Jac, *bls.G1Jac]) {
	pts, sc := testPoints(t, n), random(t, n)
	plan := memPlan{chunk: 1 << 8, fixed: 1 << 10}
	plan.cap = plan.streamedNeed(n)
	store := &cappedStore{cap: plan.cap, fixed: plan.fixed}
	r := newResidency[bls.G1Affine, bls.G1Jac](store, &vram{budget: plan.cap, plan: plan, rows: n})
	require.NoError(t, r.warm(pts))
	return pts, sc, plan, store, r
}

// A set that will stream gets its stream buffers when it is warmed
// (the key made resident or not as it loads): a partition's vectors that
// take the room later leave its MSM the streamer, instead of a chunk at a
// time through fresh device buffers.
func TestWarmMakesTheStreamBuffersOfASetThatStreams(t *testing.T) {
	const n = 1 << 10
	pts, sc, plan, store, r := warmedStreamingSet(t, n)
	require.NotNil(t, r.st, "warm made the streamer")
	buffers := store.live
	require.Equal(t, 2*uint64(plan.chunk)*(g1Size+g2Size), buffers)

	// Everything but an MSM's scalars, buckets and chunk scratch taken.
	rest := store.cap - store.live - n*scalarSize - streamAcc(n) - plan.msmScratch(plan.chunk)
	require.NoError(t, store.alloc(rest))
	got, err := r.msm(pts, sc)
	require.NoError(t, err)
	want := cpuG1(t, pts, sc)
	require.True(t, want.Equal(&got))
	require.Equal(t, n/plan.chunk, r.st.(*fakeStream).puts, "the streamer's slots took every chunk")
	require.Zero(t, store.refused)
	store.release(rest)
	r.close()
	require.Zero(t, store.live)

	// A set that stays resident makes no streamer.
	r = newResidency[bls.G1Affine, bls.G1Jac](store, &vram{budget: 1 << 30})
	require.NoError(t, r.warm(pts))
	require.Nil(t, r.st)
	r.close()
}

// A partition that needs smaller chunks (CheckRows: devmem.go's fitted)
// remakes a streamer made with larger buffers, at once, so that its room
// is freed and its smaller buffers held before the partition runs; a
// larger chunk changes nothing. The MSMs go in the new chunks.
func TestShrinkChunkRemakesTheStreamer(t *testing.T) {
	const n = 1 << 10
	pts, sc, _, store, r := warmedStreamingSet(t, n)
	r.shrinkChunk(1 << 9)
	require.Equal(t, 1<<8, r.chunkSize(), "a larger chunk is not taken")
	r.shrinkChunk(1 << 7)
	require.Equal(t, 1<<7, r.chunkSize())
	require.NotNil(t, r.st, "the streamer made again")
	require.Equal(t, 1<<7, r.st.(*fakeStream).chunk)
	require.Equal(t, 2*uint64(1<<7)*(g1Size+g2Size), store.live, "the larger buffers freed")
	got, err := r.msm(pts, sc)
	require.NoError(t, err)
	want := cpuG1(t, pts, sc)
	require.True(t, want.Equal(&got))
	require.Equal(t, n>>7, r.st.(*fakeStream).puts, "chunks of the new size")
	r.close()
	require.Zero(t, store.live)
}

// With no room for the stream buffers, a set whose host pages were given
// back goes up a chunk at a time decoded from its file: the MSM of the
// file's points, and the section stays given back (decoded whole onto
// the host again, a 2^27-domain key's B_G2 is 25.8 GB beside the file).
func TestGivenBackSetGoesUpInChunksFromItsFile(t *testing.T) {
	ref, pk := givenBackKey(t)
	host := pk.HostBytes()

	m := len(pk.L)
	plan := memPlan{chunk: 1 << 11, fixed: 1 << 10}
	plan.cap = plan.streamedNeed(m)
	store := &cappedStore{cap: uint64(m)*scalarSize + plan.msmScratch(plan.chunk) + uint64(plan.chunk)*g1Size, fixed: plan.fixed}
	r := newResidency[bls.G1Affine, bls.G1Jac](store, &vram{budget: plan.cap, plan: plan, rows: m})
	sc := random(t, m)
	got, err := r.msm(pk.L, sc)
	require.NoError(t, err)
	want := cpuG1(t, ref.L, sc)
	require.True(t, want.Equal(&got), "the MSM of the file's points")
	require.Nil(t, r.st, "no streamer was made")
	require.EqualValues(t, (m+plan.chunk-1)/plan.chunk, r.streamedChunks.Load())
	require.Equal(t, host, pk.HostBytes(), "nothing decoded into the key's sections")
	require.True(t, params.Released(span(pk.L)))
	r.close()
	runtime.KeepAlive(pk)
}

// BeginRegion counts what a region's query stage may still allocate
// before QueryMSMs counts exactly: aux unless it was prefetched, beside
// a selection of up to every input and aux value.
func TestBeginRegionCountsTheQueryStage(t *testing.T) {
	b := &Backend{}
	aux := make([]fr.Element, 100)
	p := b.newPrefetch(aux)
	p.BeginRegion(3)
	require.Equal(t, queryStage{state: stageActive, peak: (100 + 103) * scalarSize}, b.qs)
	require.EqualValues(t, (100+103)*scalarSize, b.qs.extra(128))
	p.auxDev = &scalars{n: len(aux)} // aux's copy made (no device here: never freed)
	p.BeginRegion(3)
	p.auxDev = nil
	require.Equal(t, queryStage{state: stageActive, peak: 103 * scalarSize}, b.qs, "aux prefetched: a selection alone to come")
	require.NoError(t, b.queryMem(0, 0, nil))
	require.Zero(t, b.qs.extra(128), "the query MSMs done")
}

// The domain constants the device's NTTs take are those of the domain
// the CPU backend uses, computed without its twiddle and coset tables
// (~4n elements: 17 GB on the host at 2^27, kept while the domain is
// cached).
func TestDomainConstantsWithoutTables(t *testing.T) {
	for _, n := range []int{1 << 10, 1 << 18} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		ntt.DomainConstants(n) // what domainConsts builds, uncached
		runtime.ReadMemStats(&after)
		require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(n)*32/4, "2^%d: allocated for tables", bits.Len(uint(n))-1)
		c := domainConsts(n)
		d := ntt.Domain(n)
		require.Equal(t, d.Generator, c.omega)
		require.Equal(t, d.GeneratorInv, c.omegaInv)
		require.Equal(t, d.CardinalityInv, c.nInv)
		require.Equal(t, d.FrMultiplicativeGen, c.g)
		require.Equal(t, d.FrMultiplicativeGenInv, c.gInv)
	}
	// domainConsts itself, at a size no other test of the package asks
	// for (its cache would hide the cost)
	const n = 1 << 21
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	domainConsts(n)
	runtime.ReadMemStats(&after)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(n)*32/4, "2^21: allocated for tables")
}

// givenBackKey writes a tiled key (L of 20·2^10 points) and returns it
// read onto the heap and read off the heap with its host pages given back.
func givenBackKey(t *testing.T) (ref, pk *params.ProvingKey) {
	t.Helper()
	const n = 1 << 10
	g1, g2 := testPoints(t, 300), testPointsG2(t, 70)
	vk := &params.VerifyingKey{Alpha1: g1[0], Beta1: g1[1], Delta1: g1[2], Beta2: g2[0], Gamma2: g2[1], Delta2: g2[2], IC: g1[:3]}
	path := filepath.Join(t.TempDir(), "tiled.params")
	require.NoError(t, params.WriteTiledFile(path, vk, params.TiledLayout{H: n, L: 20 * n, A: n, BG1: n, BG2: n}, g1, g2))
	ref, err := params.ReadProvingKey(path, params.Options{SkipSubgroupCheck: true})
	require.NoError(t, err)
	pk, err = params.ReadProvingKey(path, params.Options{SkipSubgroupCheck: true, OffHeap: true})
	require.NoError(t, err)
	pk.ReleaseHost(true)
	require.True(t, params.Released(span(pk.L)))
	return ref, pk
}

// prepareFile makes the cappedStore a filePreparer: it records the
// buffer sizes asked for.
func (f *cappedStore) prepareFile(_ any, bytes int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.prepared = append(f.prepared, bytes)
	return nil
}

// A set that streams from its file gets the host buffers of the file's
// reads when it is warmed, a chunk's bytes each; a set on the host does
// not.
func TestWarmPreparesTheFileReadsOfAGivenBackSet(t *testing.T) {
	ref, pk := givenBackKey(t)
	m := len(pk.L)
	plan := memPlan{chunk: 1 << 11, fixed: 1 << 10}
	plan.cap = plan.streamedNeed(m)
	store := &cappedStore{cap: plan.cap, fixed: plan.fixed}
	r := newResidency[bls.G1Affine, bls.G1Jac](store, &vram{budget: plan.cap, plan: plan, rows: m})
	require.NoError(t, r.warm(ref.L))
	require.NotNil(t, r.st)
	require.Empty(t, store.prepared, "a set on the host")
	require.NoError(t, r.warm(pk.L))
	require.Equal(t, []int{plan.chunk * int(g1Size)}, store.prepared)
	r.close()
	runtime.KeepAlive(pk)
}

// aheadStore is a cappedStore whose puts copy from a host buffer a slot,
// as the file's reads do: readAhead fills the slot's buffer, a put takes
// it when it holds the put's points and fills it itself otherwise. It
// records a read into a slot whose put is still running (the buffer in
// use) and how many puts found their chunk read.
type aheadStore struct {
	*cappedStore
	mu       sync.Mutex
	buf      [2][]bls.G1Affine
	held     [2]*bls.G1Affine
	busy     [2]bool
	clashes  int
	taken    int
	failRead int // readAhead of this 1-based call fails
	reads    int
}

func (f *aheadStore) readAhead(_ any, slot int, points []bls.G1Affine) error {
	f.mu.Lock()
	f.reads++
	if f.busy[slot] {
		f.clashes++
	}
	f.held[slot] = nil
	fail := f.reads == f.failRead
	f.mu.Unlock()
	time.Sleep(50 * time.Microsecond) // a read takes a while: room for a put to overlap it
	if fail {
		copy(f.buf[slot], points[:len(points)/2]) // a part read, then the error
		return errors.New("read failed")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf[slot] = append(f.buf[slot][:0], points...)
	f.held[slot] = &points[0]
	return nil
}

func (f *aheadStore) put(st any, slot int, points []bls.G1Affine) error {
	f.mu.Lock()
	f.busy[slot] = true
	from := points
	if f.held[slot] == &points[0] && len(f.buf[slot]) == len(points) {
		from = f.buf[slot]
		f.taken++
	}
	f.held[slot] = nil
	f.mu.Unlock()
	time.Sleep(50 * time.Microsecond)
	err := f.cappedStore.put(st, slot, from)
	f.mu.Lock()
	f.busy[slot] = false
	f.mu.Unlock()
	return err
}

// A streamed set's chunks are read ahead into the slot whose put has
// returned: every put but the first one or two finds its chunk read, no
// read lands in a buffer a put is copying from, and every result equals
// the CPU's; a read that fails is read again by the put.
func TestReadAheadFillsTheFreeSlot(t *testing.T) {
	const n = 7<<10 + 5
	plan := memPlan{chunk: 1 << 10, fixed: 4 << 10}
	plan.cap = plan.streamedNeed(n)
	chunks := (n + plan.chunk - 1) / plan.chunk
	for _, failRead := range []int{0, 3} {
		store := &aheadStore{cappedStore: &cappedStore{cap: plan.cap, fixed: plan.fixed}, failRead: failRead}
		r := newResidency[bls.G1Affine, bls.G1Jac](store, &vram{budget: plan.cap, plan: plan, rows: n})
		pts, sc := testPoints(t, n), random(t, n)
		want := cpuG1(t, pts, sc)
		for round := 0; round < 2; round++ {
			got, err := r.msm(pts, sc)
			require.NoError(t, err)
			require.True(t, want.Equal(&got), "fail read %d, round %d", failRead, round)
		}
		require.False(t, r.resident(pts))
		require.Zero(t, store.clashes, "a read into a buffer in use")
		taken := 2 * (chunks - 1) // each round: every chunk but the first
		if failRead > 0 {
			taken--
		}
		require.Equal(t, taken, store.taken, "fail read %d", failRead)
		r.close()
		require.Zero(t, store.live)
	}
}
