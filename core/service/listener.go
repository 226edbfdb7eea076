package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/cuzk/cuzk/core/engine"
)

// listener is metrics.listen's HTTP server: GET /metrics (the Prometheus
// text of MetricsText) and GET /status (the JSON of StatusJSON), so that a
// host need not serve them itself. It belongs to the service: Configure
// starts, rebinds and stops it, Close stops it.
type listener struct {
	addr string // as configured
	ln   net.Listener
	srv  *http.Server
	done chan struct{} // closed when Serve has returned
}

// readHeaderTimeout bounds how long a connection may take to send its
// request's headers, so that idle or slow clients cannot hold connections
// open indefinitely; scrapers send theirs at once.
const readHeaderTimeout = 10 * time.Second

// relistenLocked makes the listener serve addr ("" = none): kept when addr
// is unchanged, else the new one bound before the old one closes, so that a
// bind failure (a BadConfig error) leaves the old one serving.
func (s *Service) relistenLocked(addr string) error {
	if s.http != nil && s.http.addr == addr {
		return nil
	}
	var next *listener
	if addr != "" {
		var err error
		if next, err = listen(addr, s.StatusJSON, s.gatherer(), s.log); err != nil {
			return err
		}
	}
	if s.http != nil {
		s.http.close()
	}
	s.http = next
	return nil
}

// listen binds addr and serves status's JSON and g's metrics on it.
func listen(addr string, status func() ([]byte, error), g prometheus.Gatherer, log *slog.Logger) (*listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, &Error{Code: BadConfig, Err: fmt.Errorf("config: metrics.listen: %w", err)}
	}
	errLog := slog.NewLogLogger(log.Handler(), slog.LevelWarn)
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{ErrorLog: errLog}))
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, _ *http.Request) {
		js, err := status()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(append(js, '\n'))
	})
	l := &listener{addr: addr, ln: ln, done: make(chan struct{}),
		srv: &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout, ErrorLog: errLog}}
	go func() {
		defer close(l.done)
		if err := l.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Error("cuzk: metrics listener stopped", "addr", ln.Addr().String(), "err", err)
		}
	}()
	log.Info("cuzk: serving /metrics and /status", "addr", ln.Addr().String())
	return l, nil
}

// close stops accepting, closes the connections and waits for Serve to
// return (not for handlers still running: they hold no listener state).
func (l *listener) close() {
	_ = l.srv.Close()
	<-l.done
}

// shutdownWait bounds how long shutdown waits for requests in flight.
const shutdownWait = 5 * time.Second

// shutdown stops accepting and waits for the requests in flight (at most
// shutdownWait), then closes what is left.
func (l *listener) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownWait)
	defer cancel()
	_ = l.srv.Shutdown(ctx)
	l.close()
}

// ListenAddr returns the address the listener is bound to ("" when
// metrics.listen is off): with port 0 configured, the port it took.
func (s *Service) ListenAddr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.http == nil {
		return ""
	}
	return s.http.ln.Addr().String()
}

// ServeEngine serves an engine run without the service (the CLI's bench,
// a Go host) on addr as metrics.listen does: GET /metrics with the Go and
// process collectors and cuzk_build_info beside the engine's metrics, and
// GET /status. It returns the address bound (port 0 takes a free one) and
// a function that stops the server.
func ServeEngine(addr string, e *engine.Engine, version string, log *slog.Logger) (bound string, stop func(), err error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildInfo{func() string { return version }})
	l, err := listen(addr, e.StatusJSON, prometheus.Gatherers{reg, e.Registry()}, log)
	if err != nil {
		return "", nil, err
	}
	return l.ln.Addr().String(), l.close, nil
}
