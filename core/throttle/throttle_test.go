package throttle

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/internal/clock"
)

func TestPauseWhileRaised(t *testing.T) {
	clk := clock.NewManual()
	const sleep = 100 * time.Microsecond
	th := New(true, sleep, clk)
	var flips []bool
	th.OnChange(func(r bool) { flips = append(flips, r) })
	th.Pause() // not raised: returns at once
	require.Zero(t, th.Stats().Yields)

	th.Raise()
	th.Raise()
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); th.Pause(); done.Store(true) }()
	// waiting asserts it sleeps, one sleep per check, on the clock
	waiting := func() {
		require.Eventually(t, func() bool { return clk.Pending() == 1 }, 10*time.Second, time.Millisecond)
	}
	for i := 0; i < 50; i++ {
		waiting()
		clk.Advance(sleep)
	}
	waiting()
	require.False(t, done.Load(), "paused while raised")
	th.Lower()
	clk.Advance(sleep)
	waiting()
	require.False(t, done.Load(), "still raised by the second G2 MSM")
	th.Lower()
	clk.Advance(sleep)
	wg.Wait()
	st := th.Stats()
	require.EqualValues(t, 52, st.Yields, "one yield per sleep")
	require.Equal(t, 52*sleep, st.Throttled, "the clock's time while paused")
	require.Equal(t, []bool{true, false}, flips)

	th.SetHost(true)
	require.True(t, th.Raised())
	th.SetHost(false)
	require.False(t, th.Raised())
	require.Equal(t, []bool{true, false}, flips, "the host's own hold is not reported back to it")
}

func TestDisabled(t *testing.T) {
	th := New(false, 0, nil)
	th.Raise()
	require.False(t, th.Raised())
	th.Lower()
	th.Pause()
	th.SetHost(true) // the host's own request still counts
	require.True(t, th.Raised())
}
