package groth16

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/progress"
	"github.com/cuzk/cuzk/core/synthetic"
)

// TestProgress: the setup counts every point of the key it returns, the
// query being computed named; a proof reports each of its stages begun and
// ended, in the order of its report, up to all of them.
func TestProgress(t *testing.T) {
	cs, w, err := synthetic.Generate(synthetic.Spec{Constraints: 1 << 9, DenseFraction: 0.5, Seed: 4})
	require.NoError(t, err)
	var setup []progress.Event
	pk, err := SetupWith(cs, 2, SetupOptions{Progress: func(e progress.Event) { setup = append(setup, e) }})
	require.NoError(t, err)
	points := int64(len(pk.IC) + len(pk.L) + len(pk.H) + len(pk.A) + len(pk.BG1) + len(pk.BG2))
	require.NotEmpty(t, setup)
	steps := map[string]bool{}
	for i, e := range setup {
		require.Equal(t, StageSetup, e.Stage)
		require.Equal(t, progress.Points, e.Unit)
		require.Equal(t, points, e.Total)
		if i > 0 {
			require.GreaterOrEqual(t, e.Done, setup[i-1].Done)
		}
		steps[e.Step] = true
	}
	require.Equal(t, points, setup[len(setup)-1].Done)
	require.Equal(t, map[string]bool{"ic": true, "l": true, "h": true, "a": true, "b_g1": true, "b_g2": true}, steps)

	var prove []progress.Event
	_, rep, err := Prove(pk, cs, w, Options{Progress: func(e progress.Event) { prove = append(prove, e) }})
	require.NoError(t, err)
	// each stage of the report (but "other", the remainder) begun then
	// ended: Done is the expected cost of the stages ended before each
	// event, a stage weighing its points (G2 points 290/127 of G1's) or
	// its domain rows, Total the whole proof's
	n := int64(len(pk.H) + 1)
	cost := map[string]int64{StageMatVec: n, StageFFT: 16 * n, StageMSMH: 127 * int64(len(pk.H)), StageMSML: 127 * int64(len(pk.L)),
		StageMSMA: 127 * int64(len(pk.A)), StageMSMB1: 127 * int64(len(pk.BG1)), StageMSMB2: 290 * int64(len(pk.BG2))}
	var total int64
	for _, c := range cost {
		total += c
	}
	var want []progress.Event
	var done int64
	for _, s := range rep.Stages {
		if s.Name == StageOther {
			continue
		}
		want = append(want, progress.Event{Stage: StageProve, Step: s.Name, Done: done, Total: total, Unit: progress.Work})
		done += cost[s.Name]
		want = append(want, progress.Event{Stage: StageProve, Step: s.Name, Done: done, Total: total, Unit: progress.Work})
	}
	require.Len(t, want, 14)
	require.Equal(t, want, prove)
	require.True(t, prove[len(prove)-1].Final())
}
