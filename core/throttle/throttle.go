// Package throttle is the memory-bandwidth throttle: a process-wide flag
// raised while a CPU G2 MSM runs (and settable by the host), checked by the
// synthesis mat-vec every few thousand rows. While it is raised, mat-vec
// goroutines sleep instead of streaming the witness through memory.
//
// Measured in the reference system: under load the bottleneck moved to the
// host memory system (32.1 s/proof isolated, 38.0 s/proof at 15 concurrent);
// a flag like this one, with serialized frees and a smaller MSM pool, brought
// it to 36.7 s/proof.
package throttle

import (
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cuzk/cuzk/core/internal/clock"
)

// Throttle is safe for concurrent use. The zero value is an enabled
// throttle that never sleeps.
type Throttle struct {
	raisers  atomic.Int64 // G2 MSMs running
	host     atomic.Bool  // raised by the host through the API
	disabled atomic.Bool
	sleep    atomic.Int64 // nanoseconds

	yields    atomic.Int64
	throttled atomic.Int64 // nanoseconds spent paused

	clock clock.Clock // nil: the real clock

	mu       sync.Mutex
	onChange func(raised bool)
	last     bool
}

// New returns a throttle; paused goroutines sleep for sleep per check,
// on clk (nil: the real clock; the engine passes its own).
func New(enabled bool, sleep time.Duration, clk clock.Clock) *Throttle {
	t := &Throttle{clock: clk}
	t.Configure(enabled, sleep)
	return t
}

// Configure changes the settings of a live throttle.
func (t *Throttle) Configure(enabled bool, sleep time.Duration) {
	t.disabled.Store(!enabled)
	t.sleep.Store(int64(sleep))
}

// OnChange registers fn, called (serially) whenever a G2 MSM raises the
// throttle from lowered, or the last one lowers it (the host's own
// SetHost does not call it); the C ABI uses it to call the host's
// set_membw_throttle around the G2 MSM.
func (t *Throttle) OnChange(fn func(raised bool)) {
	t.mu.Lock()
	t.onChange = fn
	t.mu.Unlock()
}

func (t *Throttle) notify() {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.raisers.Load() > 0
	if now != t.last {
		t.last = now
		if t.onChange != nil {
			t.onChange(now)
		}
	}
}

// Raise marks one more G2 MSM running. It does nothing on a disabled
// throttle.
func (t *Throttle) Raise() {
	if t.disabled.Load() {
		return
	}
	t.raisers.Add(1)
	t.notify()
}

// Lower undoes one Raise.
func (t *Throttle) Lower() {
	if t.disabled.Load() {
		return
	}
	t.raisers.Add(-1)
	t.notify()
}

// SetHost raises or lowers the host's own hold on the throttle.
func (t *Throttle) SetHost(raised bool) {
	t.host.Store(raised)
}

// Raised reports whether the throttle is raised.
func (t *Throttle) Raised() bool { return t.raisers.Load() > 0 || t.host.Load() }

// Pause blocks while the throttle is raised; it is the mat-vec's check.
func (t *Throttle) Pause() {
	if !t.Raised() {
		return
	}
	clk := clock.Or(t.clock)
	start := clk.Now()
	for t.Raised() {
		t.yields.Add(1)
		<-clk.After(max(time.Duration(t.sleep.Load()), time.Microsecond))
	}
	t.throttled.Add(int64(clk.Now().Sub(start)))
}

// Stats are the throttle's counters.
type Stats struct {
	Raised    bool          `json:"raised"`
	Host      bool          `json:"host"`
	G2Running int64         `json:"g2_running"`
	Yields    int64         `json:"yields"`
	Throttled time.Duration `json:"-"` // throttled_seconds
}

// MarshalJSON writes the throttled time in seconds.
func (s Stats) MarshalJSON() ([]byte, error) {
	type fields Stats // without this method
	return json.Marshal(struct {
		fields
		Throttled float64 `json:"throttled_seconds"`
	}{fields(s), s.Throttled.Seconds()})
}

// Stats returns the current state and counters.
func (t *Throttle) Stats() Stats {
	return Stats{Raised: t.Raised(), Host: t.host.Load(), G2Running: t.raisers.Load(),
		Yields: t.yields.Load(), Throttled: time.Duration(t.throttled.Load())}
}
