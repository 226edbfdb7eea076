package progress

import (
	"bytes"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRateLimited(t *testing.T) {
	var got []int64
	quiet := RateLimited(time.Hour, func(e Event) { got = append(got, e.Done) })
	for i := int64(1); i <= 10; i++ {
		quiet(Event{Stage: "decode", Done: i, Total: 10})
	}
	require.Empty(t, got, "a short stage stays silent, its end too")

	every := RateLimited(0, func(e Event) { got = append(got, e.Done) })
	every(Event{Stage: "decode", Done: 5, Total: 10})
	every(Event{Stage: "decode", Done: 10, Total: 10})
	every(Event{Stage: "decode", Done: 10, Total: 10})
	require.Equal(t, []int64{5, 10, 10}, got)
}

// TestSerialised: concurrent reporters' calls never overlap, and Done
// never goes back within a stage.
func TestSerialised(t *testing.T) {
	var (
		inside  int
		overlap bool
		seen    = map[string]int64{}
		back    bool
	)
	f := Serialised(func(e Event) {
		inside++
		if inside > 1 {
			overlap = true
		}
		if e.Done < seen[e.Stage] {
			back = true
		}
		seen[e.Stage] = e.Done
		time.Sleep(time.Microsecond)
		inside--
	})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var n int64
	for range 8 {
		wg.Go(func() {
			for range 200 {
				mu.Lock()
				n++
				d := n
				mu.Unlock()
				// the report races with the other goroutines' after
				// the count was taken, as a reporter's does
				f(Event{Stage: "s", Done: d, Total: 1600})
				f(Event{Stage: "t", Done: d})
			}
		})
	}
	wg.Wait()
	require.False(t, overlap)
	require.False(t, back)
	require.Equal(t, int64(1600), seen["s"])
	require.Nil(t, Serialised(nil))
	var nilFunc Func
	nilFunc.Report(Event{}) // a nil Func is a no-op
}

func TestLog(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	Log(log, "cuzk: loading parameters", "path", "/p")(Event{Stage: "subgroup", Done: 3, Total: 9, Unit: Points})
	require.Contains(t, buf.String(), `msg="cuzk: loading parameters" path=/p stage=subgroup done=3 total=9 unit=points`)
}
