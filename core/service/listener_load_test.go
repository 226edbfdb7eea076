package service

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/config"
)

// listenerLoadFull runs the load test longer (a minute of load instead of
// ten seconds): go test ./core/service -run UnderLoad -listener-load-full.
var listenerLoadFull = flag.Bool("listener-load-full", false, "run TestListenerUnderLoad for a minute")

// The load test's shape: the clients the issue that bounded the listener
// described, against a host process whose descriptor limit leaves room for
// the listener's connections and its own files but not for the clients.
const (
	loadIdle      = 1000 // connect and send nothing
	loadPartial   = 300  // send part of a request's headers
	loadNeverRead = 200  // send requests, never read a response
	loadMaxConns  = 32
	loadHostFiles = 8 // files the host holds open at once beside its loads
	// loadFDSlack is what the host may hold beside its baseline and the
	// listener's connections: its files, the circuit, parameter and
	// record files being read, the connection accepted beyond the limit
	// and those being shed.
	loadFDSlack    = loadHostFiles + 8
	loadHostEnvVar = "CUZK_LISTENER_LOAD_HOST"
)

// loadResult is what the host process reports.
type loadResult struct {
	BaseFDs, MaxFDs, Limit int
	Rounds, Proofs         int
	Errors                 []string
	Shed                   int64
}

// TestListenerUnderLoad runs a host in a child process (its descriptor
// limit lowered to leave only the listener's connections and its own
// files) that registers circuits, loads parameters, opens files and proves
// while this process holds 1,000 idle, 300 partial-request and 200
// never-reading connections to its listener, reconnecting each a second
// after the host closes it (the idle ones wait in the kernel,
// TCP_DEFER_ACCEPT, holding no descriptor of the host's). The host's opens
// never fail, every proof verifies, its descriptors stay under the
// listener's limit plus a few, and a well-behaved client's GET /metrics is
// answered within its 1 s timeout throughout (the slowest took 0.3 s on a
// 2-core CPU machine beside another package's tests; without the limit
// the host's opens fail and scrapes time out).
func TestListenerUnderLoad(t *testing.T) {
	if dir := os.Getenv(loadHostEnvVar); dir != "" {
		loadHost(t, dir)
		return
	}
	if testing.Short() {
		t.Skip("ten seconds of 1,500 connections")
	}
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	// The clients' descriptors are this process's (Go raised its soft
	// limit to the hard one).
	var lim syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim))
	if need := uint64(loadIdle+loadPartial+loadNeverRead) + 256; lim.Cur < need {
		t.Skipf("a descriptor limit of %d; the clients need %d", lim.Cur, need)
	}
	load := 10 * time.Second
	if *listenerLoadFull {
		load = time.Minute
	}
	dir, _, _ := fixture(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestListenerUnderLoad$", "-test.count=1")
	cmd.Env = append(os.Environ(), loadHostEnvVar+"="+dir)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(stdout)
	var addr string
	for lines.Scan() {
		if a, ok := strings.CutPrefix(lines.Text(), "listening "); ok {
			addr = a
			break
		}
	}
	require.NotEmpty(t, addr, "the host did not start")
	results := make(chan string, 1)
	var output []string // the host's other lines, for a failure
	go func() {
		defer close(results)
		for lines.Scan() {
			if js, ok := strings.CutPrefix(lines.Text(), "result "); ok {
				results <- js
			} else {
				output = append(output, lines.Text())
			}
		}
	}()

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var dials, dialErrs atomic.Int64
	client := func(kind int) {
		defer wg.Done()
		// Spread the first connections over the first half second.
		if !pause(stop, time.Duration(rand.IntN(500))*time.Millisecond) {
			return
		}
		for {
			dials.Add(1)
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				dialErrs.Add(1)
			} else {
				hold(c, kind, stop)
			}
			if !pause(stop, time.Second+time.Duration(rand.IntN(200))*time.Millisecond) {
				return
			}
		}
	}
	for i := range loadIdle + loadPartial + loadNeverRead {
		kind := 0
		switch {
		case i >= loadIdle+loadPartial:
			kind = 2
		case i >= loadIdle:
			kind = 1
		}
		wg.Add(1)
		go client(kind)
	}

	// A well-behaved scraper: a new connection each time, a 1 s timeout.
	scraper := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	var scrapes int
	var failed []string
	deadline := time.Now().Add(load)
	var slowest time.Duration
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		scrapes++
		at := time.Now()
		resp, err := scraper.Get("http://" + addr + "/metrics")
		if err != nil {
			failed = append(failed, fmt.Sprintf("%.1fs: %v", time.Until(deadline).Seconds(), err))
			continue
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		slowest = max(slowest, time.Since(at))
		if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "cuzk_build_info") {
			failed = append(failed, fmt.Sprintf("status %d, %d bytes, %v", resp.StatusCode, len(body), err))
		}
	}
	close(stop)
	wg.Wait()
	require.NoError(t, stdin.Close()) // the host's signal to stop and report
	var res loadResult
	for js := range results {
		require.NoError(t, json.Unmarshal([]byte(js), &res))
	}
	require.NoError(t, cmd.Wait(), "the host:\n%s", strings.Join(output, "\n"))
	t.Logf("slowest scrape %v", slowest)
	t.Logf("%d scrapes, %d dials (%d failed), host: %+v", scrapes, dials.Load(), dialErrs.Load(), res)

	require.Empty(t, failed, "a well-behaved scraper was not answered within 1 s")
	require.Empty(t, res.Errors, "the host's opens, loads and proofs")
	require.Positive(t, res.Rounds)
	require.Equal(t, 2*res.Rounds, res.Proofs, "every proof verified")
	require.LessOrEqual(t, res.MaxFDs, res.BaseFDs+loadMaxConns+loadFDSlack, "the host's descriptors")
	require.Greater(t, res.Limit, res.BaseFDs+loadMaxConns+loadFDSlack, "the host's limit leaves room for what it may hold")
	require.Less(t, res.Limit, loadIdle, "the host's limit is below what the clients would take unbounded")
	require.Greater(t, dials.Load(), int64(loadIdle+loadPartial+loadNeverRead), "clients were shed and came back")
	require.Positive(t, res.Shed)
}

// pause waits d, or until stop; it reports whether stop has not come.
func pause(stop chan struct{}, d time.Duration) bool {
	select {
	case <-stop:
		return false
	case <-time.After(d):
		return true
	}
}

// hold keeps c as a client of the kind does until the host closes it or
// stop comes: 0 sends nothing, 1 part of a request's headers, 2 whole
// requests (more every 100 ms) and never reads.
func hold(c net.Conn, kind int, stop chan struct{}) {
	defer c.Close()
	closed := make(chan struct{})
	switch kind {
	case 0, 1:
		if kind == 1 {
			if _, err := io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: "); err != nil {
				return
			}
		}
		go func() {
			defer close(closed)
			_, _ = c.Read(make([]byte, 1)) // returns when the host closes it
		}()
	case 2:
		// A small receive buffer, so that the host's writes block soon.
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(4096)
		}
		req := strings.Repeat("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 4)
		go func() {
			defer close(closed)
			for {
				_ = c.SetWriteDeadline(time.Now().Add(time.Second))
				_, err := io.WriteString(c, req)
				var ne net.Error
				if err != nil && !(errors.As(err, &ne) && ne.Timeout()) {
					return // closed by the host
				}
				if !pause(stop, 100*time.Millisecond) {
					return
				}
			}
		}()
	}
	select {
	case <-stop:
	case <-closed:
	}
}

// openFDs counts this process's descriptors.
func openFDs() int {
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(es) - 1 // ReadDir's own
}

// loadHost is the host process of TestListenerUnderLoad: it lowers its
// descriptor limit, serves metrics.listen on a free loopback port (printed
// as "listening ADDR"), and registers, loads, opens and proves in rounds
// until its stdin closes, sampling its descriptors every millisecond; then
// it prints "result JSON".
func loadHost(t *testing.T, dir string) {
	s := New(nil, config.CUDASearch{})
	defer s.Close()
	s.SetDefaultRecordDir(filepath.Join(dir, "record"))
	require.NoError(t, s.Configure(fmt.Sprintf("[synthesis]\nthreads = 1\n[metrics]\nmax_connections = %d\nlisten = \"127.0.0.1:0\"\n", loadMaxConns)))
	// One round before the clients come, so that what a round holds once
	// (the engine's goroutines' files, the record) is in the baseline.
	_, ws := fixtureSystem(t)
	var res loadResult
	round := func() {
		res.Rounds++
		id := fmt.Sprintf("c%d", res.Rounds%4)
		fail := func(what string, err error) {
			if err != nil && len(res.Errors) < 20 {
				res.Errors = append(res.Errors, fmt.Sprintf("round %d: %s: %v", res.Rounds, what, err))
			}
		}
		var files []*os.File
		for i := range loadHostFiles {
			f, err := os.Open(filepath.Join(dir, []string{"c.r1cs", "c.params"}[i%2]))
			fail("open", err)
			if err == nil {
				files = append(files, f)
			}
		}
		fail("register", s.RegisterCircuit(id, filepath.Join(dir, "c.r1cs")))
		fail("load", s.LoadParams(id, filepath.Join(dir, "c.params"), false))
		for _, f := range files {
			f.Close()
		}
		r, err := s.Prove(Request{CircuitID: id, Witnesses: ws})
		fail("prove", err)
		if err == nil {
			public := [][]fr.Element{ws[0].Inputs[1:], ws[1].Inputs[1:]}
			err = s.Verify(id, r.Proofs, public)
			fail("verify", err)
			if err == nil {
				res.Proofs += 2
			}
		}
	}
	round()
	res.Rounds, res.Proofs = 0, 0
	res.BaseFDs = openFDs()
	res.Limit = res.BaseFDs + loadMaxConns + loadFDSlack + 8
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: uint64(res.Limit), Max: uint64(res.Limit)}))

	var maxFDs atomic.Int64
	sampled := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if n := int64(openFDs()); n > maxFDs.Load() {
				maxFDs.Store(n)
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		_, _ = io.Copy(io.Discard, os.Stdin)
	}()
	fmt.Printf("listening %s\n", s.ListenAddr())
	for {
		select {
		case <-ended:
			close(done)
			<-sampled
			res.MaxFDs = int(maxFDs.Load())
			s.mu.Lock()
			res.Shed = s.http.limit.shedCount()
			s.mu.Unlock()
			js, err := json.Marshal(res)
			require.NoError(t, err)
			fmt.Printf("result %s\n", js)
			return
		default:
			round()
		}
	}
}
