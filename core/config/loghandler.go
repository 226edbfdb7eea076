package config

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
)

// LogHandler is a host layer's log handler whose format follows
// logging.format (SetFormat), for a log made before any configuration is
// read (the C library's on stderr). Handlers derived from it (WithAttrs,
// WithGroup) follow it too.
type LogHandler struct {
	json        *atomic.Bool
	text, jsonH slog.Handler
}

// NewLogHandler writes text lines to w until SetFormat says otherwise.
func NewLogHandler(w io.Writer, opts *slog.HandlerOptions) LogHandler {
	return LogHandler{json: new(atomic.Bool), text: slog.NewTextHandler(w, opts), jsonH: slog.NewJSONHandler(w, opts)}
}

// SetFormat switches to l.Format (json, else text).
func (h LogHandler) SetFormat(l Logging) { h.json.Store(l.Format == "json") }

func (h LogHandler) pick() slog.Handler {
	if h.json.Load() {
		return h.jsonH
	}
	return h.text
}

// Enabled implements slog.Handler.
func (h LogHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.pick().Enabled(ctx, l) }

// Handle implements slog.Handler.
func (h LogHandler) Handle(ctx context.Context, r slog.Record) error { return h.pick().Handle(ctx, r) }

// WithAttrs implements slog.Handler.
func (h LogHandler) WithAttrs(a []slog.Attr) slog.Handler {
	return LogHandler{json: h.json, text: h.text.WithAttrs(a), jsonH: h.jsonH.WithAttrs(a)}
}

// WithGroup implements slog.Handler.
func (h LogHandler) WithGroup(name string) slog.Handler {
	return LogHandler{json: h.json, text: h.text.WithGroup(name), jsonH: h.jsonH.WithGroup(name)}
}
