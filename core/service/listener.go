package service

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/engine"
)

// listener is metrics.listen's HTTP server: GET /metrics (the Prometheus
// text of MetricsText) and GET /status (the JSON of StatusJSON), so that a
// host need not serve them itself. It belongs to the service: Configure
// starts, rebinds and stops it, Close stops it.
//
// It holds at most metrics.max_connections connections (connLimiter), each
// bounded in time: a request's headers must come within readHeaderTimeout
// and the whole request within readTimeout, its response be written
// within writeTimeout, and an idle keep-alive connection closes after
// idleTimeout; headers are capped at maxHeaderBytes.
type listener struct {
	addr  string // as configured
	ln    net.Listener
	limit *connLimiter
	srv   *http.Server
	done  chan struct{} // closed when Serve has returned
}

// The listener's time bounds. Scrapers and curl send a request of a few
// hundred bytes at once and read a response of tens of KB at once on the
// networks it should be bound to; the bounds only end connections that do
// not, sooner than any host's descriptors matter (the limiter sheds those
// first when new connections come). Prometheus scrapes every 15 to 60 s
// and keeps its connection between scrapes, so an idle one lasts past one
// interval.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 10 * time.Second
	writeTimeout      = 10 * time.Second
	idleTimeout       = 90 * time.Second
	// maxHeaderBytes: a GET for /metrics or /status needs a few hundred
	// bytes; the server allows 4 KiB beyond it for the request line.
	maxHeaderBytes = 8 << 10
)

// deferAcceptSeconds is TCP_DEFER_ACCEPT's wait: a connection that sends
// nothing stays in the kernel, holding no descriptor, until it sends its
// request or about this long has passed (the kernel counts it in SYN-ACK
// retransmissions), as nginx's "deferred" listen option does. An HTTP
// client speaks first, so a scraper is accepted as soon as its request
// arrives, and is read at once.
const deferAcceptSeconds = 5

// deferAccept sets TCP_DEFER_ACCEPT on the listening socket.
func deferAccept(_, _ string, rc syscall.RawConn) error {
	var serr error
	err := rc.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_DEFER_ACCEPT, deferAcceptSeconds)
	})
	return cmp.Or(err, serr)
}

// relistenLocked makes the listener serve addr ("" = none) holding at
// most max connections: kept when addr is unchanged (its limit set to
// max), else the new one bound before the old one closes, so that a bind
// failure (a BadConfig error) leaves the old one serving.
func (s *Service) relistenLocked(addr string, max int) error {
	if s.http != nil && s.http.addr == addr {
		s.http.limit.setMax(max)
		return nil
	}
	var next *listener
	if addr != "" {
		var err error
		if next, err = listen(addr, max, s.StatusJSON, s.gatherer(), s.log); err != nil {
			return err
		}
	}
	if s.http != nil {
		s.http.close()
	}
	s.http = next
	return nil
}

// listen binds addr and serves status's JSON and g's metrics on it, over
// at most max connections.
func listen(addr string, max int, status func() ([]byte, error), g prometheus.Gatherer, log *slog.Logger) (*listener, error) {
	lc := net.ListenConfig{Control: deferAccept}
	ln, err := lc.Listen(context.Background(), "tcp", addr)
	if err != nil {
		return nil, &Error{Code: BadConfig, Err: fmt.Errorf("config: metrics.listen: %w", err)}
	}
	limit := newConnLimiter(ln, max)
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
	l := &listener{addr: addr, ln: ln, limit: limit, done: make(chan struct{}),
		srv: &http.Server{Handler: newResponder(mux), ErrorLog: errLog,
			ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout, WriteTimeout: writeTimeout,
			IdleTimeout: idleTimeout, MaxHeaderBytes: maxHeaderBytes,
			ConnState: connState, ConnContext: connContext}}
	go func() {
		defer close(l.done)
		if err := l.srv.Serve(limit); !errors.Is(err, http.ErrServerClosed) {
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
// a Go host) on m.Listen as metrics.listen does, over at most
// m.MaxConnections connections (config.Default()'s when 0): GET /metrics
// with the Go and process collectors and cuzk_build_info beside the
// engine's metrics, and GET /status. It returns the address bound (port 0
// takes a free one) and a function that stops the server.
func ServeEngine(m config.Metrics, e *engine.Engine, version string, log *slog.Logger) (bound string, stop func(), err error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildInfo{func() string { return version }})
	l, err := listen(m.Listen, cmp.Or(m.MaxConnections, config.Default().Metrics.MaxConnections), e.StatusJSON, prometheus.Gatherers{reg, e.Registry()}, log)
	if err != nil {
		return "", nil, err
	}
	return l.ln.Addr().String(), l.close, nil
}
