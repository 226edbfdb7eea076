package throttle

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestPauseWhileRaised(t *testing.T) {
	th := New(true, 100*time.Microsecond)
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
	time.Sleep(5 * time.Millisecond)
	require.False(t, done.Load(), "paused while raised")
	th.Lower()
	time.Sleep(2 * time.Millisecond)
	require.False(t, done.Load(), "still raised by the second G2 MSM")
	th.Lower()
	wg.Wait()
	st := th.Stats()
	require.Positive(t, st.Yields)
	require.GreaterOrEqual(t, st.Throttled, 5*time.Millisecond)
	require.Equal(t, []bool{true, false}, flips)

	th.SetHost(true)
	require.True(t, th.Raised())
	th.SetHost(false)
	require.False(t, th.Raised())
	require.Equal(t, []bool{true, false}, flips, "the host's own hold is not reported back to it")
}

func TestDisabled(t *testing.T) {
	th := New(false, 0)
	th.Raise()
	require.False(t, th.Raised())
	th.Lower()
	th.Pause()
	th.SetHost(true) // the host's own request still counts
	require.True(t, th.Raised())
}
