package par

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRangesCoverOnce(t *testing.T) {
	for _, c := range []struct{ chunks, n int }{{1, 0}, {1, 10}, {3, 10}, {7, 5}, {16, 1 << 12}} {
		hits := make([]atomic.Int32, c.n)
		Ranges(c.chunks, c.n, func(_, from, to int) {
			for i := from; i < to; i++ {
				hits[i].Add(1)
			}
		})
		for i := range hits {
			require.EqualValues(t, 1, hits[i].Load(), "chunks %d, n %d: index %d", c.chunks, c.n, i)
		}
	}
}

func TestForRunsEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 5, 1000} {
		hits := make([]atomic.Int32, n)
		For(n, func(i int) { hits[i].Add(1) })
		for i := range hits {
			require.EqualValues(t, 1, hits[i].Load(), "n %d: index %d", n, i)
		}
	}
}
