// Package progress carries reports of long work — loading and validating
// parameter files, the development setup, proving — from the code that
// does it to whoever shows them: the command line draws a live line on a
// terminal and plain lines in a log; a library host logs them (Log) or
// passes them on.
//
// A reporter calls a Func with an Event each time a unit of work ends, or a
// step begins; it makes its calls one at a time (Serialised), so a Func
// needs no lock of its own, and Done never goes back within a stage.
package progress

import (
	"log/slog"
	"sync"
	"time"
)

// Units of Event.Done and Event.Total.
const (
	Bytes      = "bytes"
	Points     = "points"
	Stages     = "stages"
	Partitions = "partitions"
	Proofs     = "proofs"
	// Work counts a stage's expected cost in its reporter's own units
	// (a proof weighs its stages by a cost model): only the share done
	// means anything, and the rate at which it grows.
	Work = "work"
)

// Event is one report: Done of Total units of Stage are done.
type Event struct {
	// Stage names the work: "decode", "subgroup", "setup", "prove".
	Stage string
	// Step names the part of the stage under way, where it has parts:
	// the query a setup is computing, the proving stage begun or ended.
	Step string
	// Done and Total count Unit; Total is 0 when unknown.
	Done, Total int64
	Unit        string
}

// Final reports whether the event ends its stage.
func (e Event) Final() bool { return e.Total > 0 && e.Done >= e.Total }

// Func receives events.
type Func func(Event)

// Report calls f, if set.
func (f Func) Report(e Event) {
	if f != nil {
		f(e)
	}
}

// Serialised returns f made safe to call from several goroutines: calls
// are passed on one at a time, and a report of a stage that lost a race
// (a smaller Done than one already passed on) is dropped, so that Done
// never goes back. nil stays nil.
func Serialised(f Func) Func {
	if f == nil {
		return nil
	}
	var (
		mu   sync.Mutex
		last = map[string]int64{}
	)
	return func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		if d, ok := last[e.Stage]; ok && e.Done < d {
			return
		}
		last[e.Stage] = e.Done
		f(e)
	}
}

// RateLimited passes on to f at most one report per interval, the first
// an interval after it is made, and the last of a stage (Final) once
// something of that stage was passed: short work stays silent, long work
// gives a report every interval and its end.
func RateLimited(interval time.Duration, f Func) Func {
	if f == nil {
		return nil
	}
	var (
		mu     sync.Mutex
		last   = time.Now()
		shown  string // the stage last passed on
		closed bool   // its final report was passed on
	)
	return func(e Event) {
		mu.Lock()
		now := time.Now()
		final := e.Final()
		pass := now.Sub(last) >= interval || (final && e.Stage == shown && !closed)
		if pass {
			last, closed = now, final && e.Stage == shown
			if e.Stage != shown {
				shown, closed = e.Stage, final
			}
		}
		mu.Unlock()
		if pass {
			f(e)
		}
	}
}

// Log returns a Func that writes each event to log at info level, as msg
// with the event's fields after attrs; rate-limit it (RateLimited) for a
// log a person reads.
func Log(log *slog.Logger, msg string, attrs ...any) Func {
	return func(e Event) {
		a := append(append([]any(nil), attrs...), "stage", e.Stage)
		if e.Step != "" {
			a = append(a, "step", e.Step)
		}
		a = append(a, "done", e.Done, "total", e.Total, "unit", e.Unit)
		log.Info(msg, a...)
	}
}
