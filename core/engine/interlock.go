package engine

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cuzk/cuzk/core/backend"
)

// interlock is the per-device lock, held only around the device region
// (NTTs and the G1 MSMs); CPU prep runs before it, the G2 MSM and the
// epilogue after it. A failure or a panic inside the region releases the
// lock — a later job never finds it poisoned — and an error wrapping
// backend.ErrDeviceFailed marks the device failed.
type interlock struct {
	mu     sync.Mutex
	holder atomic.Int64 // worker id holding the lock, or -1
	failed atomic.Bool

	// statistics
	acquisitions atomic.Int64
	waitNs       atomic.Int64
	busyNs       atomic.Int64
	inside       atomic.Int64 // workers inside the region: never above 1
	maxInside    atomic.Int64
}

func newInterlock() *interlock {
	l := &interlock{}
	l.holder.Store(-1)
	return l
}

// errPanic is wrapped by the error of a panic inside the region.
var errPanic = errors.New("backend panic")

// run takes the lock for worker, runs region, and releases the lock
// whatever region does. It returns the time spent waiting for the lock;
// region receives the acquisition's sequence number (1, 2, ...).
func (l *interlock) run(worker int, region func(seq int64) error) (wait time.Duration, err error) {
	if l.failed.Load() {
		return 0, fmt.Errorf("engine: %w", backend.ErrDeviceFailed)
	}
	start := time.Now()
	l.mu.Lock()
	wait = time.Since(start)
	l.holder.Store(int64(worker))
	n := l.inside.Add(1)
	if n > l.maxInside.Load() {
		l.maxInside.Store(n)
	}
	seq := l.acquisitions.Add(1)
	l.waitNs.Add(int64(wait))
	acquired := time.Now()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("engine: %w: %v\n%s", errPanic, r, debug.Stack())
		}
		if errors.Is(err, backend.ErrDeviceFailed) {
			l.failed.Store(true)
		}
		l.busyNs.Add(int64(time.Since(acquired)))
		l.inside.Add(-1)
		l.holder.Store(-1)
		l.mu.Unlock()
	}()
	return wait, region(seq)
}
