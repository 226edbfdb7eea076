package cpu

import (
	"sync/atomic"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk/cuzk/core/internal/par"
)

// CheckSubgroupG1 returns the index of the first of points that is not on
// the curve or not in G1 (−1 when all are in it; infinity is), with
// gnark-crypto's IsInSubGroup on NbTasks goroutines.
func (b *Backend) CheckSubgroupG1(points []bls.G1Affine) (int, error) {
	return firstFailing(len(points), b.tasks(), func(i int) bool { return points[i].IsInSubGroup() }), nil
}

// CheckSubgroupG2 is CheckSubgroupG1 for G2.
func (b *Backend) CheckSubgroupG2(points []bls.G2Affine) (int, error) {
	return firstFailing(len(points), b.tasks(), func(i int) bool { return points[i].IsInSubGroup() }), nil
}

// firstFailing returns the least i < n for which ok(i) is false, or −1,
// over tasks contiguous ranges; a range stops at its first failure and
// once a failure below its position is known.
func firstFailing(n, tasks int, ok func(i int) bool) int {
	var first atomic.Int64
	first.Store(int64(n))
	par.Ranges(min(tasks, max(n, 1)), n, func(_, from, to int) {
		for i := from; i < to && int64(i) < first.Load(); i++ {
			if ok(i) {
				continue
			}
			for cur := first.Load(); int64(i) < cur && !first.CompareAndSwap(cur, int64(i)); cur = first.Load() {
			}
			return
		}
	})
	if f := int(first.Load()); f < n {
		return f
	}
	return -1
}
