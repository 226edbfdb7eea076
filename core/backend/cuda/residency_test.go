package cuda

import (
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"
)

// fakeStore is a device made of host memory: it copies uploads (as the
// GPU does), computes MSMs with gnark-crypto, tracks live bytes and can
// refuse uploads above a capacity, as a GPU out of memory does.
type fakeStore struct {
	capacity, live uint64
	uploads, frees int
	allocs         int
	failAll        bool
}

var g1Bytes = pointBytes[bls.G1Affine]()

var errFakeOOM = errors.New("out of memory")

func (f *fakeStore) upload(points []bls.G1Affine) (any, error) {
	size := uint64(len(points)) * g1Bytes
	if f.failAll || f.live+size > f.capacity {
		return nil, errFakeOOM
	}
	f.live += size
	f.uploads++
	cp := append([]bls.G1Affine(nil), points...)
	return &cp, nil
}

func (f *fakeStore) msm(h any, scalars []fr.Element) (bls.G1Jac, error) {
	pts := *h.(*[]bls.G1Affine)
	var r bls.G1Jac
	_, err := r.MultiExp(pts[:len(scalars)], scalars, ecc.MultiExpConfig{})
	return r, err
}

func (f *fakeStore) checkSubgroup(h any, offset, n int) (bad, first int, err error) {
	pts := *h.(*[]bls.G1Affine)
	first = -1
	for i := offset; i < offset+n; i++ {
		if !pts[i].IsInSubGroup() {
			if bad++; first < 0 {
				first = i
			}
		}
	}
	return bad, first, nil
}

// alloc and fill make it a fillStore: a set of n zero points, filled in
// ranges.
func (f *fakeStore) alloc(n int) (any, error) {
	size := uint64(n) * g1Bytes
	if f.failAll || f.live+size > f.capacity {
		return nil, errFakeOOM
	}
	f.live += size
	f.allocs++
	pts := make([]bls.G1Affine, n)
	return &pts, nil
}

func (f *fakeStore) fill(h any, offset int, points []bls.G1Affine) error {
	copy((*h.(*[]bls.G1Affine))[offset:], points)
	return nil
}

func (f *fakeStore) free(h any) {
	f.live -= uint64(len(*h.(*[]bls.G1Affine))) * g1Bytes
	f.frees++
}

func TestResidentSetsUploadOnce(t *testing.T) {
	pts, sc := testPoints(t, 1000), random(t, 1000)
	store := &fakeStore{capacity: 1 << 30}
	r := newResidency[bls.G1Affine, bls.G1Jac](store, &vram{budget: 1 << 20})
	for i := 0; i < 3; i++ {
		got, err := r.msm(pts, sc)
		require.NoError(t, err)
		w := cpuG1(t, pts, sc)
		require.True(t, w.Equal(&got))
	}
	require.Equal(t, 1, store.uploads, "a resident set is uploaded once")
	require.Zero(t, r.streamedChunks.Load())

	// The same backing array with new contents is a new set (the
	// fingerprint catches a freed slice's address being reused).
	pts[0], pts[1] = pts[1], pts[0]
	_, err := r.msm(pts, sc)
	require.NoError(t, err)
	require.Equal(t, 2, store.uploads)
	r.close()
	require.Zero(t, store.live, "close frees every resident set")
}

func TestStreamingWhenOverBudget(t *testing.T) {
	pts, sc := testPoints(t, 5000), random(t, 5000)
	store := &fakeStore{capacity: 1 << 30}
	r := newResidency[bls.G1Affine, bls.G1Jac](store, &vram{budget: 1000 * g1Bytes}) // a set of 5000 points does not fit
	r.chunk.Store(1024)
	got, err := r.msm(pts, sc)
	require.NoError(t, err)
	w := cpuG1(t, pts, sc)
	require.True(t, w.Equal(&got), "the streamed MSM equals the whole one")
	require.EqualValues(t, 5, r.streamedChunks.Load())
	require.Equal(t, store.uploads, store.frees, "streamed chunks are freed")
	require.Zero(t, store.live)

	// A set within the budget still becomes resident beside it.
	small := pts[:500]
	_, err = r.msm(small, sc[:500])
	require.NoError(t, err)
	require.Equal(t, 500*g1Bytes, store.live)
}

func TestUploadFailureStreamsThenErrors(t *testing.T) {
	pts, sc := testPoints(t, 3000), random(t, 3000)
	// The device refuses the whole set but takes chunks: streamed.
	store := &fakeStore{capacity: 1500 * g1Bytes}
	r := newResidency[bls.G1Affine, bls.G1Jac](store, &vram{budget: 1 << 30})
	r.chunk.Store(1000)
	got, err := r.msm(pts, sc)
	require.NoError(t, err)
	w := cpuG1(t, pts, sc)
	require.True(t, w.Equal(&got))
	require.EqualValues(t, 3, r.streamedChunks.Load())

	// A device that takes nothing is an error, never a silent CPU fall-back.
	r2 := newResidency[bls.G1Affine, bls.G1Jac](&fakeStore{failAll: true}, &vram{budget: 1 << 30})
	_, err = r2.msm(pts, sc)
	require.ErrorIs(t, err, errFakeOOM)
	require.ErrorContains(t, err, "streaming points 0..")
}

// The subgroup check runs over the resident set, which the MSM then uses
// without a second upload, and over streamed chunks with indices counted
// from the start of the whole set.
func TestSubgroupCheckResidentAndStreamed(t *testing.T) {
	pts, sc := testPoints(t, 3000), random(t, 3000)
	var order3 bls.G1Affine // (0, 2): on the curve, of order 3
	order3.Y.SetUint64(2)
	for _, at := range []int{2047, 1500, 2999} {
		pts[at] = order3
	}
	store := &fakeStore{capacity: 1 << 30}
	r := newResidency[bls.G1Affine, bls.G1Jac](store, &vram{budget: 1 << 30})
	bad, first, err := r.checkSubgroup(pts)
	require.NoError(t, err)
	require.Equal(t, 3, bad)
	require.Equal(t, 1500, first)
	_, err = r.msm(pts, sc)
	require.NoError(t, err)
	require.Equal(t, 1, store.uploads, "the MSM uses the set the check uploaded")

	streamed := newResidency[bls.G1Affine, bls.G1Jac](&fakeStore{capacity: 1 << 30}, &vram{budget: 100 * g1Bytes})
	streamed.chunk.Store(1000)
	bad, first, err = streamed.checkSubgroup(pts)
	require.NoError(t, err)
	require.Equal(t, 3, bad)
	require.Equal(t, 1500, first, "the index counts from the start of the set, not of its chunk")
	require.EqualValues(t, 3, streamed.streamedChunks.Load())
	bad, first, err = streamed.checkSubgroup(pts[:1500])
	require.NoError(t, err)
	require.Zero(t, bad)
	require.Equal(t, -1, first)
}

// A set checked range by range as it is decoded: resident, each range
// filled at its offset and checked there (indices in the whole set); kept
// for the MSMs when the check completes (no second upload), dropped
// otherwise; streamed range by range when it does not fit.
func TestRangeCheckFillsTheResidentSet(t *testing.T) {
	pts, sc := testPoints(t, 3000), random(t, 3000)
	var order3 bls.G1Affine // (0, 2): on the curve, of order 3
	order3.Y.SetUint64(2)
	decoded := make([]bls.G1Affine, len(pts)) // filled range by range, as the decoder does
	store := &fakeStore{capacity: 1 << 30}
	r := newResidency[bls.G1Affine, bls.G1Jac](store, &vram{budget: 1 << 30})
	c := r.beginCheck(decoded)
	require.Equal(t, 1, store.allocs)
	for _, rg := range [][2]int{{1000, 2000}, {0, 1000}, {2000, 3000}} { // out of order
		copy(decoded[rg[0]:rg[1]], pts[rg[0]:rg[1]])
		bad, first, err := c.check(rg[0], rg[1])
		require.NoError(t, err)
		require.Zero(t, bad)
		require.Equal(t, -1, first)
	}
	c.done(true)
	got, err := r.msm(decoded, sc)
	require.NoError(t, err)
	w := cpuG1(t, pts, sc)
	require.True(t, w.Equal(&got), "the MSM over the filled set")
	require.Zero(t, store.uploads, "the MSM uses the set the check filled")

	// A bad point: its index in the set; the check dropped, the memory back.
	bad := append([]bls.G1Affine(nil), pts...)
	bad[2500] = order3
	live := store.live
	c = r.beginCheck(bad)
	n, first, err := c.check(2000, 3000)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, 2500, first)
	c.done(false)
	require.Equal(t, live, store.live, "an incomplete check frees its set")
	_, err = r.msm(bad, sc)
	require.NoError(t, err)
	require.Equal(t, 1, store.uploads, "a dropped set is uploaded afresh")

	// Out of range: an error, not a crash.
	c = r.beginCheck(pts[:10])
	_, _, err = c.check(5, 11)
	require.Error(t, err)
	c.done(false)

	// Over the budget: streamed range by range, nothing allocated.
	small := &fakeStore{capacity: 1 << 30}
	s := newResidency[bls.G1Affine, bls.G1Jac](small, &vram{budget: 100 * g1Bytes})
	s.chunk.Store(400)
	c = s.beginCheck(bad)
	n, first, err = c.check(2000, 3000)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, 2500, first)
	c.done(true)
	require.Zero(t, small.allocs)
	require.Zero(t, small.live)
	require.EqualValues(t, 3, s.streamedChunks.Load())
}

// warm uploads a set that fits, once, so that the MSMs after it upload
// nothing; a set over the budget is left to stream (nothing resident).
func TestWarmMakesResidentAhead(t *testing.T) {
	pts, sc := testPoints(t, 1000), random(t, 1000)
	store := &fakeStore{capacity: 1 << 30}
	r := newResidency[bls.G1Affine, bls.G1Jac](store, &vram{budget: 1500 * g1Bytes})
	require.NoError(t, r.warm(pts))
	require.Equal(t, 1, store.uploads)
	require.True(t, r.resident(pts))
	got, err := r.msm(pts, sc)
	require.NoError(t, err)
	w := cpuG1(t, pts, sc)
	require.True(t, w.Equal(&got))
	require.Equal(t, 1, store.uploads, "the MSM after warm uploads nothing")

	big := testPoints(t, 2000) // over what is left of the budget
	require.NoError(t, r.warm(big))
	require.False(t, r.resident(big))
	require.Equal(t, 1, store.uploads)
	require.NoError(t, r.warm(nil))
	r.close()
	require.Zero(t, store.live)
}

// A set whose contents are vouched for is filled range by range without a
// check, and kept: the MSMs over it upload nothing; over the budget there
// is nothing to keep and nothing is sent.
func TestRangeFillKeepsTheSetUnchecked(t *testing.T) {
	pts, sc := testPoints(t, 3000), random(t, 3000)
	decoded := make([]bls.G1Affine, len(pts))
	store := &fakeStore{capacity: 1 << 30}
	r := newResidency[bls.G1Affine, bls.G1Jac](store, &vram{budget: 1 << 30})
	c := r.beginCheck(decoded)
	for _, rg := range [][2]int{{2000, 3000}, {0, 2000}} {
		copy(decoded[rg[0]:rg[1]], pts[rg[0]:rg[1]])
		require.NoError(t, c.fill(rg[0], rg[1]))
	}
	require.Error(t, c.fill(0, 3001), "out of range: an error")
	c.done(true)
	got, err := r.msm(decoded, sc)
	require.NoError(t, err)
	w := cpuG1(t, pts, sc)
	require.True(t, w.Equal(&got), "the MSM over the filled set")
	require.Zero(t, store.uploads)

	small := &fakeStore{capacity: 1 << 30}
	s := newResidency[bls.G1Affine, bls.G1Jac](small, &vram{budget: 100 * g1Bytes})
	c = s.beginCheck(pts)
	require.NoError(t, c.fill(0, 3000))
	c.done(true)
	require.Zero(t, small.allocs)
	require.Zero(t, small.uploads)
}
