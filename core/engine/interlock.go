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
// backend.ErrDeviceFailed (and not the stop of the region's job) marks the
// device failed: run refuses every later region with that error.
type interlock struct {
	clock  Clock // for the wait and busy accounts
	mu     sync.Mutex
	holder atomic.Int64 // worker id holding the lock, or -1
	// failure is the first error that wrapped backend.ErrDeviceFailed; nil
	// while the device is in service.
	failure atomic.Pointer[error]

	// statistics
	acquisitions atomic.Int64
	waitNs       atomic.Int64
	busyNs       atomic.Int64
	inside       atomic.Int64 // workers inside the region: never above 1
	maxInside    atomic.Int64
}

func newInterlock(clk Clock) *interlock {
	l := &interlock{clock: clk}
	l.holder.Store(-1)
	return l
}

// errPanic is wrapped by the error of a panic inside the region.
var errPanic = errors.New("backend panic")

// stopped wraps the cause of a job's end met by one of its partitions: it
// says nothing of the device the partition ran on, even when the cause is
// another device's failure (a job stops all its partitions when one fails).
type stopped struct{ cause error }

func (s stopped) Error() string { return s.cause.Error() }
func (s stopped) Unwrap() error { return s.cause }

// errOutOfService is wrapped by run's refusal of a failed device, beside
// the error that failed it.
var errOutOfService = errors.New("device out of service")

// failed returns the error that took the device out of service, or nil.
func (l *interlock) failed() error {
	if p := l.failure.Load(); p != nil {
		return *p
	}
	return nil
}

// markFailed takes the device out of service if err wraps
// backend.ErrDeviceFailed (and is not the stop of a job), wherever the
// device met it: inside a region, in a partition's work outside it, a
// key's upload or a subgroup check. It reports whether err did.
func (l *interlock) markFailed(err error) bool {
	if !errors.Is(err, backend.ErrDeviceFailed) || errors.As(err, new(stopped)) {
		return false
	}
	f := err
	l.failure.CompareAndSwap(nil, &f)
	return true
}

// run takes the lock for worker, runs region, and releases the lock
// whatever region does. It returns the time spent waiting for the lock;
// region receives the acquisition's sequence number (1, 2, ...). On a
// failed device region does not run (checked with the lock held: the
// region that failed it may have held the lock meanwhile).
func (l *interlock) run(worker int, region func(seq int64) error) (wait time.Duration, err error) {
	start := l.clock.Now()
	l.mu.Lock()
	acquired := l.clock.Now()
	wait = acquired.Sub(start)
	if f := l.failed(); f != nil {
		l.mu.Unlock()
		return wait, fmt.Errorf("engine: %w: %w", errOutOfService, f)
	}
	l.holder.Store(int64(worker))
	n := l.inside.Add(1)
	if n > l.maxInside.Load() {
		l.maxInside.Store(n)
	}
	seq := l.acquisitions.Add(1)
	l.waitNs.Add(int64(wait))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("engine: %w: %v\n%s", errPanic, r, debug.Stack())
		}
		l.markFailed(err)
		l.busyNs.Add(int64(l.clock.Now().Sub(acquired)))
		l.inside.Add(-1)
		l.holder.Store(-1)
		l.mu.Unlock()
	}()
	return wait, region(seq)
}
