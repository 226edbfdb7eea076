package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/cuzk/cuzk/core/progress"
)

// openPTY allocates a pseudo-terminal: the master end the test reads, the
// slave end the command writes to as its stderr.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	fd := int(master.Fd())
	require.NoError(t, unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0)) // unlock
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	require.NoError(t, err)
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	return master, slave
}

// drain reads r to its end in the background; wait returns what was read.
func drain(r io.Reader) (wait func() string) {
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() {
		io.Copy(&buf, r) // a pty master ends with EIO once the slave is closed
		close(done)
	}()
	return func() string { <-done; return buf.String() }
}

// eager makes the meter draw every event at once, for the length of a
// test: no delay before a stage is drawn, no period between lines.
func eager(t *testing.T) {
	d, r, p := liveDelay, liveRedraw, plainEvery
	liveDelay, liveRedraw, plainEvery = 0, 0, 0
	t.Cleanup(func() { liveDelay, liveRedraw, plainEvery = d, r, p })
}

// cliOn runs the command line with stderr on the given file, stdout in a
// buffer; it returns the exit code and stdout.
func cliOn(stderr *os.File, args ...string) (int, string) {
	var out bytes.Buffer
	code := run(args, &out, stderr)
	return code, out.String()
}

// ansi matches the terminal controls the live line uses.
var ansi = regexp.MustCompile("\r|\x1b\\[K")

// TestProgressOnTerminal: on a pseudo-terminal, setup and prove draw one
// live line redrawn in place (\r, erase to the end of the line), and each
// stage drawn ends with a line of its own; the printed times name the
// parameter load and its validation as stages of their own.
func TestProgressOnTerminal(t *testing.T) {
	eager(t)
	p := generated(t)
	master, slave := openPTY(t)
	defer master.Close()
	read := drain(master)
	require.NoError(t, os.WriteFile(p("rec.toml"), []byte("[srs]\nvalidation_record_dir = '"+p("rec")+"'\n"), 0o644))
	code, setupOut := cliOn(slave, "setup", "--r1cs", p("c.r1cs"), "--out", p("d.params"), "--config", p("rec.toml"))
	require.Equal(t, 0, code)
	// an empty record: the prove checks every point, reported as it goes
	require.NoError(t, os.RemoveAll(p("rec")))
	code, proveOut := cliOn(slave, "prove", "--params", p("d.params"), "--r1cs", p("c.r1cs"), "--wtns", p("w.wtns"), "--out", p("d.bin"), "--config", p("rec.toml"))
	require.Equal(t, 0, code)
	slave.Close()
	tty := read()

	require.Contains(t, tty, "\r", "redrawn in place")
	require.Contains(t, tty, "\x1b[K", "the rest of the line erased")
	require.NotContains(t, tty, "cuzk: setup", "no plain lines on a terminal")
	for _, want := range []string{
		"\rsetup  ", " points ",
		"setup: done, ", "\rload params: subgroup  ",
		"load params: subgroup: done, ", "\rprove  msm h  ",
		"prove: done in ",
	} {
		require.Contains(t, tty, want)
	}
	// Each line of the terminal is live lines redrawn in place, then a
	// stage's last line: the text after the last \r is that line.
	for _, line := range strings.Split(strings.TrimSuffix(tty, "\r\n"), "\r\n") {
		shown := line[strings.LastIndex(line, "\r")+1:]
		if strings.HasPrefix(shown, "time=") {
			continue // the engine's log (--config: logging.level info), on a line of its own
		}
		require.Regexp(t, `^[a-z :]+: done(, [0-9.]+(k? [a-z]+| [KMG]?i?B))? in [0-9.]+[mµ]?s( \(.*/s\))?\x1b\[K$`, shown, "%q", line)
	}
	require.Contains(t, setupOut, "\n  setup ")
	require.Regexp(t, `\n  load params +\S+ +\S+%  \S+ [KMG]?i?B, decoded with curve checks\n`, proveOut)
	require.Regexp(t, `\n  validate params +\S+ +\S+%  subgroup check of every point`, proveOut)
	require.Regexp(t, `\n  prove +\S+ +\S+%\n`, proveOut)
	require.NotContains(t, proveOut, "\r")

	// --quiet draws nothing.
	master, slave = openPTY(t)
	defer master.Close()
	read = drain(master)
	code, _ = cliOn(slave, "prove", "--quiet", "--params", p("d.params"), "--r1cs", p("c.r1cs"), "--wtns", p("w.wtns"), "--out", p("d.bin"), "--config", p("rec.toml"))
	require.Equal(t, 0, code)
	code, _ = cliOn(slave, "setup", "--quiet", "--r1cs", p("c.r1cs"), "--out", p("d.params"))
	require.Equal(t, 0, code)
	slave.Close()
	require.Empty(t, read())
}

// TestProgressInPipe: with stderr a pipe, the progress is plain lines,
// no terminal controls; --quiet silences them.
func TestProgressInPipe(t *testing.T) {
	eager(t)
	p := generated(t)
	// a record of its own, empty: the parameters' subgroup check runs
	require.NoError(t, os.WriteFile(p("rec.toml"), []byte("[srs]\nvalidation_record_dir = '"+p("rec")+"'\n"), 0o644))
	for _, quiet := range []bool{false, true} {
		require.NoError(t, os.RemoveAll(p("rec")))
		r, w, err := os.Pipe()
		require.NoError(t, err)
		read := drain(r)
		args := []string{"bench", "--params", p("c.params"), "--r1cs", p("c.r1cs"), "--wtns", p("w.wtns"), "--proofs", "2", "--partitions", "3", "--config", p("rec.toml")}
		if quiet {
			args = append(args, "--quiet")
		}
		code, out := cliOn(w, args...)
		require.Equal(t, 0, code, out)
		w.Close()
		got := read()
		r.Close()
		require.Contains(t, out, "verified 2/2 proofs")
		require.Contains(t, out, "the run, by stage")
		if quiet {
			require.Empty(t, got)
			continue
		}
		require.False(t, ansi.MatchString(got), "terminal controls in a pipe: %q", got)
		require.Regexp(t, `cuzk: load params: subgroup  \d+%  \d+/\S+ points  `, got)
		require.Contains(t, got, "cuzk: load params: subgroup: done, ")
		require.Regexp(t, `cuzk: prove  \d+%  [1-6]/6 partitions  `, got)
		require.Contains(t, got, "cuzk: prove: done, 6 partitions in ")
		for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			// the engine's log (--config: at logging.level, info) aside
			require.True(t, strings.HasPrefix(line, "cuzk: ") || strings.HasPrefix(line, "time="), "%q", line)
		}
	}
}

// TestRender checks a running stage's line against figures worked out by
// hand: 10 points every 2 s is 5 points/s; at 50 of 200, the 150 left
// take 30 s. No rate or ETA is shown before the rate is steady (three
// samples), however the first reports came.
func TestRender(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s time.Duration) time.Time { return t0.Add(s) }
	s := &stageState{name: "setup", step: "h", total: 200, unit: progress.Points, start: t0}
	s.observe(10, at(2*time.Second))
	s.observe(20, at(4*time.Second))
	require.Equal(t, "setup  h  10%  20/200 points  4s", s.render(at(4*time.Second)), "two samples: no rate yet")
	for i := int64(3); i <= 5; i++ {
		s.observe(10*i, at(time.Duration(2*i)*time.Second))
	}
	require.Equal(t, "setup  h  25%  50/200 points  5 points/s  ETA 30s  10s", s.render(at(10*time.Second)))
	require.Equal(t, "setup: done, 50 points in 10s (5 points/s)", s.final(at(10*time.Second)))

	// reports microseconds apart are one sample: a burst does not make
	// the rate steady
	b := &stageState{name: "load params: subgroup", total: 1220000, unit: progress.Points, start: t0}
	for i := int64(1); i <= 9; i++ {
		b.observe(i, at(time.Duration(i)*time.Microsecond))
	}
	require.Equal(t, "load params: subgroup  0%  9/1.22M points  18s", b.render(at(18*time.Second)), "no ETA from 9 points at the start")

	// a steady rate that changes: the smoothed rate follows it, between
	// the old and the new
	c := &stageState{name: "load params: decode", total: 12 << 30, unit: progress.Bytes, start: t0}
	for i := int64(1); i <= 3; i++ {
		c.observe(i<<30, at(time.Duration(i)*time.Second))
	}
	require.Equal(t, "load params: decode  25%  3 GiB/12 GiB  1 GiB/s  ETA 9s  3s", c.render(at(3*time.Second)))
	c.observe(5<<30, at(4*time.Second)) // 2 GiB/s over the last second
	require.Greater(t, c.rate, float64(1<<30))
	require.Less(t, c.rate, float64(2<<30))

	// a proof's stages in expected work: the share and the ETA alone
	p := &stageState{name: "prove", step: "msm l", total: 1000, unit: progress.Work, start: t0}
	for i := int64(1); i <= 4; i++ {
		p.observe(100*i, at(time.Duration(i)*time.Second))
	}
	require.Equal(t, "prove  msm l  40%  ETA 6s  4s", p.render(at(4*time.Second)))
	require.Equal(t, "prove: done in 4s", p.final(at(4*time.Second)))
	require.Equal(t, "1.23M", qty(1234567, progress.Points))
	require.Equal(t, "32.9 MiB", qty(34541976, progress.Bytes))
}
