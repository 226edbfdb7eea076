package engine

import "github.com/cuzk/cuzk/core/internal/clock"

// Clock is the engine's time source (Options.Clock): Submit's times and
// deadlines, scheduler.default_timeout, batching's wait, the interlock's
// and the throttle's accounts, the timelines and status take time from
// it. Tests drive a manual one.
type Clock = clock.Clock
