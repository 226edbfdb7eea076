package r1cs

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSlotsBoundBlocksAcrossCalls runs two inBlocks at once, four
// goroutines each, sharing three slots: never more than three blocks run
// at once (each sleeps, so that without the slots all eight would), and
// every block runs exactly once.
func TestSlotsBoundBlocksAcrossCalls(t *testing.T) {
	for _, slots := range []chan struct{}{nil, make(chan struct{}, 3)} {
		const n, block = 64, 4
		var running, most atomic.Int64
		var wg sync.WaitGroup
		hits := make([][]atomic.Int32, 2)
		for call := range hits {
			hits[call] = make([]atomic.Int32, n)
			wg.Go(func() {
				_, err := inBlocks(n, block, 4, nil, slots, func(from, to int) int {
					now := running.Add(1)
					for cur := most.Load(); now > cur && !most.CompareAndSwap(cur, now); cur = most.Load() {
					}
					time.Sleep(2 * time.Millisecond)
					for i := from; i < to; i++ {
						hits[call][i].Add(1)
					}
					running.Add(-1)
					return -1
				})
				require.NoError(t, err)
			})
		}
		wg.Wait()
		for call := range hits {
			for i := range hits[call] {
				require.EqualValues(t, 1, hits[call][i].Load(), "call %d index %d", call, i)
			}
		}
		if slots == nil {
			require.Greater(t, most.Load(), int64(3), "without slots the eight goroutines overlap")
		} else {
			require.LessOrEqual(t, most.Load(), int64(3), "three slots: at most three blocks at once")
			require.Zero(t, len(slots), "every slot given back")
		}
	}
}
