package service

import (
	"context"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// connLimiter is a net.Listener that holds at most max connections, so
// that clients of metrics.listen cannot take the host's descriptors: the
// library runs inside the host's process, whose own file opens fail once
// its descriptor limit is reached (often 1,024).
//
// At the limit it accepts one connection more, and sheds (closes) for it
// the held connection whose client has gone longest without progress: one
// that has not sent a whole request, is idle between requests, or has not
// taken any of its response for writeGrace. A connection whose response is
// being computed, or is being taken, is not shed; when every held
// connection is such, Accept waits and new connections wait in the
// kernel's backlog. Shedding the laggards at once, rather than waiting for
// their timeouts, keeps a scraper answered however many connections hold
// on without progress: with 1,500 of them coming back a second after each
// close, against 32 connections and a 5 s header timeout, a new connection
// waited behind all of them.
type connLimiter struct {
	net.Listener
	mu     sync.Mutex
	room   *sync.Cond // broadcast when a connection leaves or may be shed
	max    int
	conns  map[*limitedConn]struct{}
	closed bool
	shed   int64 // connections shed for a newer one
}

// shedGrace is how long a connection is kept after its last progress
// however many wait: a scraper's request is in the socket's buffer when
// it is accepted (deferAccept), and its goroutine reads it within a
// scheduling round, well under this beside a busy prover on a 2-core CPU
// machine; it still lets the limiter turn its connections over thousands of
// times a second.
const shedGrace = 5 * time.Millisecond

// writeGrace is how long a write may wait on its client before the
// connection may be shed: a reader takes a chunk of a response within a
// round trip, and one that reads nothing holds its connection for no one.
const writeGrace = 100 * time.Millisecond

// writeChunk is the most written at once, so that a client taking its
// response shows progress every chunk: well below a socket's send buffer
// (16 KiB to 4 MiB on Linux).
const writeChunk = 8 << 10

// sendBuffer bounds a connection's socket send buffer (Linux autotunes it
// up to 4 MiB on loopback): what a client that never reads can make the
// listener compute and the kernel keep for it, a few responses.
const sendBuffer = 64 << 10

func newConnLimiter(ln net.Listener, max int) *connLimiter {
	l := &connLimiter{Listener: ln, max: max, conns: map[*limitedConn]struct{}{}}
	l.room = sync.NewCond(&l.mu)
	return l
}

// setMax changes the limit; held connections beyond a lower one are shed
// as new ones come.
func (l *connLimiter) setMax(n int) {
	l.mu.Lock()
	l.max = n
	l.mu.Unlock()
	l.room.Broadcast()
}

// Accept waits until the connections held are at most the limit (shedding
// one for the connection accepted beyond it, once one may be shed), then
// accepts the next.
func (l *connLimiter) Accept() (net.Conn, error) {
	l.mu.Lock()
	full := len(l.conns) >= l.max
	for len(l.conns) > l.max && !l.closed {
		switch wait := l.shedLocked(); {
		case wait == 0:
		case wait > 0:
			// A write may be shed in wait; the timer takes the lock so
			// that its broadcast cannot come before this Wait begins.
			t := time.AfterFunc(wait, func() { l.mu.Lock(); l.room.Broadcast(); l.mu.Unlock() })
			l.room.Wait()
			t.Stop()
		default:
			l.room.Wait()
		}
	}
	closed := l.closed
	l.mu.Unlock()
	if closed {
		return nil, net.ErrClosed
	}
	if full {
		// The connection accepted last may be shed by the next: let its
		// goroutine (run next on this P) read the request it has sent
		// first, so that it is busy and kept.
		runtime.Gosched()
	}
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(sendBuffer)
	}
	lc := &limitedConn{Conn: c, l: l, progress: time.Now()}
	l.mu.Lock()
	l.conns[lc] = struct{}{}
	if len(l.conns) > l.max {
		l.shedLocked()
	}
	l.mu.Unlock()
	return lc, nil
}

// shedLocked closes the held connection whose client made no progress for
// longest, of those that may be shed. It returns 0 when it closed one,
// else how long until one may be shed, or −1 when none may be until
// something changes (every one is computing a response, or has sent what
// its goroutine has not read yet).
func (l *connLimiter) shedLocked() time.Duration {
	now := time.Now()
	type candidate struct {
		c       *limitedConn
		stalled time.Time
	}
	var cands []candidate
	wait := time.Duration(-1)
	for c := range l.conns {
		if c.busy {
			continue
		}
		stalled, grace := c.progress, shedGrace
		if !c.writing.IsZero() {
			stalled, grace = c.writing, writeGrace
		}
		if w := grace - now.Sub(stalled); w > 0 {
			if wait < 0 || w < wait {
				wait = w
			}
			continue
		}
		cands = append(cands, candidate{c, stalled})
	}
	slices.SortFunc(cands, func(a, b candidate) int { return a.stalled.Compare(b.stalled) })
	for _, cand := range cands {
		c := cand.c
		// Bytes waiting in the socket are a request its goroutine has not
		// read yet (not scheduled since, beside a busy prover), not a
		// client that lags; a write's connection reads nothing.
		if c.writing.IsZero() && c.unread() {
			continue
		}
		delete(l.conns, c)
		l.shed++
		// The descriptor goes when the connection's reader or writer
		// wakes (at once); the server closes the wrapper later, which
		// then counts nothing.
		_ = c.Conn.Close()
		return 0
	}
	return wait
}

// Close stops accepting; held connections are the server's to close.
func (l *connLimiter) Close() error {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.room.Broadcast()
	return l.Listener.Close()
}

// shedCount returns the number of connections shed.
func (l *connLimiter) shedCount() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.shed
}

// held returns the number of connections held.
func (l *connLimiter) held() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

// limitedConn is a connection the limiter holds. progress is when its
// client last did something (connected, sent a request, took part of a
// response); busy is set while its response is computed, writing while a
// write waits on the client (since when).
type limitedConn struct {
	net.Conn
	l        *connLimiter
	once     sync.Once
	progress time.Time
	busy     bool
	writing  time.Time
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
		c.l.room.Broadcast()
	})
	return err
}

// Read reads, a read that returns bytes being progress.
func (c *limitedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.l.mu.Lock()
		c.progress = time.Now()
		c.l.mu.Unlock()
	}
	return n, err
}

// unread reports whether bytes the client sent wait in the socket.
func (c *limitedConn) unread() bool {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	n := 0
	_ = rc.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), unix.SIOCINQ) })
	return n > 0
}

// Write writes b a chunk at a time, each chunk taken by the client being
// progress.
func (c *limitedConn) Write(b []byte) (int, error) {
	done := 0
	for done < len(b) {
		c.l.mu.Lock()
		c.writing = time.Now()
		c.l.mu.Unlock()
		n, err := c.Conn.Write(b[done:min(len(b), done+writeChunk)])
		done += n
		c.l.mu.Lock()
		c.writing = time.Time{}
		if n > 0 {
			c.progress = time.Now()
		}
		c.l.mu.Unlock()
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// touch records progress, and whether the response is being computed.
func (c *limitedConn) touch(busy bool) {
	c.l.mu.Lock()
	c.progress, c.busy = time.Now(), busy
	c.l.mu.Unlock()
	if !busy {
		c.l.room.Broadcast()
	}
}

// connState is the server's ConnState hook: a request begun (Active) or
// a response written (Idle) is progress.
func connState(c net.Conn, st http.ConnState) {
	if lc, ok := c.(*limitedConn); ok && (st == http.StateActive || st == http.StateIdle) {
		lc.touch(false)
	}
}

type connKey struct{}

// connContext is the server's ConnContext hook: it gives handlers their
// connection (for busy).
func connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// responder serves h's responses computed into memory (tens of KB of
// metrics text at most) with the connection marked busy, then writes them
// with it sheddable again: a client that does not read its response holds
// no protected slot. Requests for the same response (method, path, Accept,
// Accept-Encoding) while one is computed share it: clients that send
// requests without reading the answers made the listener compute the
// metrics ~1,500 times a second on a 2-core CPU machine, 20 ms each
// beside a prover, and kept every slot busy.
type responder struct {
	h        http.Handler
	mu       sync.Mutex
	inflight map[string]*flight
	sharing  int // requests waiting for another's response (tests read it)
}

type flight struct {
	done chan struct{}
	rec  *recorder // nil if h panicked
}

func newResponder(h http.Handler) *responder {
	return &responder{h: h, inflight: map[string]*flight{}}
}

func (p *responder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	lc, _ := r.Context().Value(connKey{}).(*limitedConn)
	if lc != nil {
		lc.touch(true)
	}
	rec := p.render(r)
	if lc != nil {
		lc.touch(false)
	}
	if rec == nil {
		http.Error(w, "cuzk: the response failed", http.StatusInternalServerError)
		return
	}
	for k, v := range rec.header {
		w.Header()[k] = slices.Clone(v)
	}
	w.WriteHeader(rec.code)
	_, _ = w.Write(rec.body)
}

// render computes r's response, or waits for the same one in flight.
func (p *responder) render(r *http.Request) *recorder {
	key := strings.Join([]string{r.Method, r.URL.Path, r.Header.Get("Accept"), r.Header.Get("Accept-Encoding")}, "\x00")
	p.mu.Lock()
	if f := p.inflight[key]; f != nil {
		p.sharing++
		p.mu.Unlock()
		<-f.done
		p.mu.Lock()
		p.sharing--
		p.mu.Unlock()
		return f.rec
	}
	f := &flight{done: make(chan struct{})}
	p.inflight[key] = f
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.inflight, key)
		p.mu.Unlock()
		close(f.done)
	}()
	rec := &recorder{header: http.Header{}, code: http.StatusOK}
	p.h.ServeHTTP(rec, r)
	f.rec = rec
	return rec
}

// recorder is an http.ResponseWriter that keeps the response in memory.
type recorder struct {
	header http.Header
	code   int
	wrote  bool
	body   []byte
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.code, r.wrote = code, true
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	r.body = append(r.body, b...)
	return len(b), nil
}
