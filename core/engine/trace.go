package engine

import (
	"context"
	"log/slog"
	"time"
)

// logPartition writes one partition's way through the pipeline at debug
// level: where the time went between submission and the proof (the
// stage-by-stage account a drop-in caller needs to see host work that
// leaves the device idle).
func (e *Engine) logPartition(t *task, rep *PartitionReport) {
	if !e.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	tl := rep.Timeline
	ms := func(from, to time.Time) float64 {
		if from.IsZero() || to.IsZero() {
			return 0
		}
		return float64(to.Sub(from).Microseconds()) / 1000
	}
	attrs := []any{"job", t.job.id, "partition", t.idx, "device", rep.Device, "worker", rep.Worker,
		"queued_ms", ms(tl.Queued, tl.SynthStart), "synth_ms", ms(tl.SynthStart, tl.SynthEnd),
		"wait_device_ms", ms(tl.SynthEnd, tl.LockWait), "lock_wait_ms", ms(tl.LockWait, tl.LockAcquired),
		"locked_ms", ms(tl.LockAcquired, tl.LockReleased), "after_lock_ms", ms(tl.LockReleased, tl.Assembled),
		// from the job's submission: the device's idle gaps between regions
		"acquired_at_ms", ms(t.job.submitted, tl.LockAcquired), "released_at_ms", ms(t.job.submitted, tl.LockReleased)}
	for _, s := range rep.Stages {
		attrs = append(attrs, s.Name+"_ms", float64(s.Duration.Microseconds())/1000)
	}
	if rep.ABCReadyMs != nil {
		attrs = append(attrs, "abc_ready_ms", *rep.ABCReadyMs)
	}
	e.log.Debug("partition proved", attrs...)
}
