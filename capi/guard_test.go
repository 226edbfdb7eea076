package main

import (
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/cuzk/cuzk/core/service"
)

// A recovered panic is INTERNAL, and its message names the panic but
// carries neither a goroutine stack nor a source path.
func TestGuardMessageHasNoStack(t *testing.T) {
	err := guard(func() error {
		var s []int
		_ = s[3]
		return nil
	})
	if !errors.Is(err, errPanic) {
		t.Fatalf("got %v, want a recovered panic", err)
	}
	msg := err.Error()
	for _, bad := range []string{"goroutine", ".go:", "runtime/debug"} {
		if strings.Contains(msg, bad) {
			t.Errorf("message %q contains %q", msg, bad)
		}
	}
	if !strings.Contains(msg, "index out of range") {
		t.Errorf("message %q does not name the panic", msg)
	}
	if e := toC(err); service.Code(e.code) != service.Internal {
		t.Errorf("code %d, want %d", e.code, service.Internal)
	}
}

// Timeouts saturate at the largest duration instead of wrapping.
func TestDurationMSSaturates(t *testing.T) {
	for _, ms := range []uint64{1 << 63, 18446744073710, 1<<64 - 1, 9223372036855} {
		if d := durationMS(cUint64(ms)); d < 1<<62 {
			t.Errorf("timeout_ms %d gave %v: wrapped", ms, d)
		}
	}
	if d := durationMS(cUint64(1500)); d.Milliseconds() != 1500 {
		t.Errorf("1500 ms gave %v", d)
	}
}

// The library's log level: an operator's CUZK_LOG_LEVEL is fixed; without
// it, warn until the host's configuration says otherwise.
func TestLogLevel(t *testing.T) {
	l := newLogLevel("")
	if l.v.Level() != slog.LevelWarn || !l.follow {
		t.Errorf("unset: level %v follow %v, want warn, following the configuration", l.v.Level(), l.follow)
	}
	l = newLogLevel("debug")
	if l.v.Level() != slog.LevelDebug || l.follow {
		t.Errorf("debug: level %v follow %v, want debug, fixed", l.v.Level(), l.follow)
	}
	l = newLogLevel("loud")
	if l.v.Level() != slog.LevelWarn || !l.follow {
		t.Errorf("invalid: level %v follow %v, want warn, following the configuration", l.v.Level(), l.follow)
	}
}
