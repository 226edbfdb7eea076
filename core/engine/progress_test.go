package engine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/progress"
)

// TestRequestProgress: a request's Progress hears of its partitions as
// they are proved, one call at a time, Done rising to Total.
func TestRequestProgress(t *testing.T) {
	f := testCircuit(t)
	e := newEngine(t, testConfig(), Options{})
	var (
		events []progress.Event
		inside int
	)
	req := f.request("p", 5, Normal)
	req.Progress = func(ev progress.Event) {
		inside++
		require.Equal(t, 1, inside, "calls overlap")
		events = append(events, ev)
		inside--
	}
	proofs, _, err := e.Prove(context.Background(), req)
	require.NoError(t, err)
	require.Len(t, proofs, 5)
	require.NotEmpty(t, events)
	for i, ev := range events {
		require.Equal(t, "prove", ev.Stage)
		require.Equal(t, progress.Partitions, ev.Unit)
		require.Equal(t, int64(5), ev.Total)
		if i > 0 {
			require.Greater(t, ev.Done, events[i-1].Done)
		}
	}
	require.True(t, events[len(events)-1].Final())
}
