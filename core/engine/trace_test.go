package engine

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/internal/logtest"
)

// The debug line of each partition places its locked region on the job's
// clock: the regions of one device follow each other, each as long as its
// locked_ms, so that the device's idle gaps between them can be read off.
func TestPartitionLineLockTimes(t *testing.T) {
	f := testCircuit(t)
	var w logtest.Buffer
	log := slog.New(slog.NewJSONHandler(&w, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e := newEngine(t, testConfig(), Options{Logger: log})
	const n = 4
	f.proveChecked(t, e, f.request("trace", n, Normal))

	type line struct {
		Msg       string  `json:"msg"`
		Partition int     `json:"partition"`
		Locked    float64 `json:"locked_ms"`
		Acquired  float64 `json:"acquired_at_ms"`
		Released  float64 `json:"released_at_ms"`
	}
	var lines []line
	sc := bufio.NewScanner(strings.NewReader(w.String()))
	for sc.Scan() {
		var l line
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l))
		if l.Msg == "partition proved" {
			lines = append(lines, l)
		}
	}
	require.Len(t, lines, n)
	sort.Slice(lines, func(a, b int) bool { return lines[a].Acquired < lines[b].Acquired })
	for i, l := range lines {
		require.Greater(t, l.Acquired, 0.0, "partition %d", l.Partition)
		require.InDelta(t, l.Locked, l.Released-l.Acquired, 0.002, "partition %d", l.Partition)
		if i > 0 {
			require.GreaterOrEqual(t, l.Acquired, lines[i-1].Released, "one device's regions do not overlap")
		}
	}
}
