package service

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/config"
)

// acceptAll accepts from l until it closes, handing each connection to
// serve in its own goroutine (as http.Server does), and sends each on
// the returned channel too.
func acceptAll(t *testing.T, l *connLimiter, serve func(*limitedConn)) <-chan *limitedConn {
	got := make(chan *limitedConn, 1024)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			got <- c.(*limitedConn)
			go serve(c.(*limitedConn))
		}
	}()
	t.Cleanup(func() { l.Close() })
	return got
}

// readUntilClosed reads c until it fails (the limiter shed it or the
// client closed it), as a server waiting for a request does.
func readUntilClosed(c *limitedConn) {
	_, _ = io.Copy(io.Discard, c)
	c.Close()
}

// closedByServer reports whether the server closed c: a read returns
// EOF or a reset within d.
func closedByServer(c net.Conn, d time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// At the limit, each new connection sheds the one that waited longest
// without progress: the host holds at most max+1 of them at any time, and
// the oldest go first.
func TestConnLimiterShedsTheOldest(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l := newConnLimiter(ln, 3)
	accepted := acceptAll(t, l, readUntilClosed)
	var clients []net.Conn
	for i := range 10 {
		clients = append(clients, dial(t, ln.Addr().String()))
		<-accepted
		require.LessOrEqual(t, l.held(), 4, "after connection %d", i)
		time.Sleep(2 * shedGrace) // let it age past the grace
	}
	for i, c := range clients {
		// The last three are held; all before them were shed, oldest first.
		require.Equal(t, i < len(clients)-3, closedByServer(c, 200*time.Millisecond), "client %d", i)
	}
	require.Equal(t, int64(7), l.shedCount())
}

// A connection whose response is being computed is never shed, nor one
// whose request waits unread in its socket: with every held connection
// such, the next waits in the kernel's backlog (Accept does not return)
// until one is no longer.
func TestConnLimiterKeepsBusyAndUnread(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l := newConnLimiter(ln, 2)
	never := func(*limitedConn) {} // reads nothing: what is sent stays unread
	accepted := acceptAll(t, l, never)
	busyConn := dial(t, ln.Addr().String())
	b := <-accepted
	b.touch(true)
	unreadConn := dial(t, ln.Addr().String())
	_, err = io.WriteString(unreadConn, "GET /metrics HTTP/1.1\r\n\r\n")
	require.NoError(t, err)
	<-accepted
	time.Sleep(2 * shedGrace)

	// The third (its request unread too) is accepted, one beyond the
	// limit, and finds nothing to shed; the fourth is not accepted.
	third := dial(t, ln.Addr().String())
	_, err = io.WriteString(third, "GET /metrics HTTP/1.1\r\n\r\n")
	require.NoError(t, err)
	<-accepted
	fourth := dial(t, ln.Addr().String())
	select {
	case <-accepted:
		t.Fatal("accepted beyond the limit with nothing to shed")
	case <-time.After(200 * time.Millisecond):
	}
	require.Equal(t, 3, l.held())
	require.False(t, closedByServer(busyConn, 50*time.Millisecond), "busy: kept")
	require.False(t, closedByServer(unreadConn, 50*time.Millisecond), "unread: kept")

	// The busy one's response computed: it is the oldest sheddable, and
	// goes for the fourth.
	b.touch(false)
	time.Sleep(2 * shedGrace)
	<-accepted
	require.True(t, closedByServer(busyConn, time.Second))
	require.False(t, closedByServer(unreadConn, 50*time.Millisecond))
	_, _ = third, fourth
	require.LessOrEqual(t, l.held(), 3)
}

// A write the client does not take is shed once it has waited writeGrace;
// until then it is kept.
func TestConnLimiterShedsAStalledWrite(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l := newConnLimiter(ln, 1)
	wrote := make(chan error, 1)
	accepted := acceptAll(t, l, func(c *limitedConn) {
		_, err := c.Write(make([]byte, 64<<20)) // far past the socket's buffers
		wrote <- err
	})
	reader := dial(t, ln.Addr().String()) // never reads
	if tc, ok := reader.(*net.TCPConn); ok {
		require.NoError(t, tc.SetReadBuffer(4096))
	}
	<-accepted
	dial(t, ln.Addr().String())
	<-accepted
	require.Error(t, <-wrote, "the stalled write ended by the shed")
	require.Equal(t, int64(1), l.shedCount())
}

// Requests for the same response while it is computed share it: the
// handler runs once for all of them, and each gets the whole response.
func TestResponderSharesAResponseInFlight(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	calls := 0
	p := newResponder(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		<-release
		w.Header().Set("X-Call", fmt.Sprint(n))
		_, _ = io.WriteString(w, strings.Repeat("m", 100<<10))
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: p, ReadHeaderTimeout: time.Minute}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	const n = 6
	bodies := make(chan string, n)
	for range n {
		go func() {
			resp, err := http.Get("http://" + ln.Addr().String() + "/metrics")
			if err != nil {
				bodies <- err.Error()
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			bodies <- resp.Header.Get("X-Call") + ":" + fmt.Sprint(len(b))
		}()
	}
	require.Eventually(t, func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.sharing == n-1
	}, 10*time.Second, time.Millisecond)
	close(release)
	for range n {
		require.Equal(t, "1:102400", <-bodies)
	}
	require.Equal(t, 1, calls)
}

// Through the service: metrics.max_connections bounds what the listener
// holds (40 partial requests against 4), a scraper is still answered, a
// header block past maxHeaderBytes is refused, and a reconfiguration with
// the same address keeps the listener with the new limit.
func TestListenerBoundsConnections(t *testing.T) {
	s := New(nil, config.CUDASearch{})
	t.Cleanup(s.Close)
	conf := func(max int) string {
		return fmt.Sprintf("[metrics]\nlisten = \"127.0.0.1:0\"\nmax_connections = %d\n", max)
	}
	require.NoError(t, s.Configure(conf(4)))
	addr := s.ListenAddr()
	limit := s.http.limit
	var partial []net.Conn
	for range 40 {
		c := dial(t, addr)
		_, err := io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: x\r\n")
		require.NoError(t, err)
		partial = append(partial, c)
		time.Sleep(2 * shedGrace)
		require.LessOrEqual(t, limit.held(), 5)
	}
	code, _, body := get(t, addr, "/metrics")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, string(body), "cuzk_build_info")
	require.True(t, closedByServer(partial[0], time.Second), "the oldest partial request was shed")

	c := dial(t, addr)
	_, err := fmt.Fprintf(c, "GET /status HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n", strings.Repeat("h", 2*maxHeaderBytes))
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusRequestHeaderFieldsTooLarge, resp.StatusCode)

	srv := s.http.srv
	require.Equal(t, []time.Duration{readHeaderTimeout, readTimeout, writeTimeout, idleTimeout},
		[]time.Duration{srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout})
	for _, d := range []time.Duration{srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout} {
		require.Positive(t, d)
	}

	require.NoError(t, s.Configure(conf(2)))
	require.Equal(t, addr, s.ListenAddr())
	require.Same(t, limit, s.http.limit)
	limit.mu.Lock()
	require.Equal(t, 2, limit.max)
	limit.mu.Unlock()
	require.Equal(t, BadConfig, CodeOf(s.Configure(conf(0))))
	require.Equal(t, BadConfig, CodeOf(s.Configure(conf(100000))))
}
