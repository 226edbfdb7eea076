package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/cuzk/cuzk/core/progress"
	"github.com/cuzk/cuzk/core/units"
)

// meter shows the progress of a command's long work (loading and
// validating parameters, setup, proving, bench) on its stderr:
//
//   - on a terminal, one live line redrawn in place (\r, erase to the end
//     of the line) with each running stage, done/total, rate and ETA;
//     a stage that was drawn gets a last line of its own when it ends;
//   - elsewhere (a pipe, a log file), a plain line for each stage every
//     plainEvery while it runs, and its end;
//   - with --quiet, nothing.
//
// Short stages show nothing: a stage is drawn once it has run liveDelay
// (a terminal) or plainEvery (elsewhere). The meter also times each stage
// the command runs (stage), for the summary the command prints.
type meter struct {
	mu     sync.Mutex
	w      io.Writer
	tty    bool
	quiet  bool
	width  int
	active []*stageState // in the order begun
	drawn  bool          // a live line is on the terminal
	ticked time.Time     // the live line's last redraw
	times  []timing      // stages run, in order (stage)
	stop   chan struct{}
	done   chan struct{}
}

// Timings of the meter, set by tests.
var (
	liveDelay  = 500 * time.Millisecond // a terminal: how long a stage runs before it is drawn
	liveRedraw = 200 * time.Millisecond // a terminal: how often the live line is redrawn
	plainEvery = 5 * time.Second        // elsewhere: the period of a running stage's lines
)

type stageState struct {
	name, step  string
	done, total int64
	unit        string
	start, last time.Time // begun; last plain line
	shown       bool      // drawn or printed
	// the rate, smoothed (rate): a sample is the count's rise over at
	// least sampleEvery, weighed in with 1 − e^(−dt/rateTau); samples
	// counts them, at and atDone are the last one's end.
	rate    float64
	samples int
	at      time.Time
	atDone  int64
}

// The rate's smoothing: no rate or ETA is shown until the stage has had
// steadyAfter samples, each over sampleEvery at least (so that a burst of
// reports microseconds apart is one sample), and each sample counts for
// its share of rateTau. A 2^18-parameter file's first subgroup check used
// to show "ETA 694h51m13s" from 9 points reported in its first instant.
const (
	sampleEvery = 200 * time.Millisecond
	rateTau     = 3 * time.Second
	steadyAfter = 3
)

// observe takes the count done at now into the smoothed rate.
func (s *stageState) observe(done int64, now time.Time) {
	s.done = done
	from, fromDone := s.at, s.atDone
	if from.IsZero() {
		from = s.start
	}
	dt := now.Sub(from)
	if dt < sampleEvery || done <= fromDone {
		return
	}
	inst := float64(done-fromDone) / dt.Seconds()
	if s.samples == 0 {
		s.rate = inst
	} else {
		a := 1 - math.Exp(-dt.Seconds()/rateTau.Seconds())
		s.rate = a*inst + (1-a)*s.rate
	}
	s.samples++
	s.at, s.atDone = now, done
}

// steady reports whether the smoothed rate may be shown.
func (s *stageState) steady() bool { return s.samples >= steadyAfter && s.rate > 0 }

// timing is one stage of the summary.
type timing struct {
	name string
	d    time.Duration
	note string
}

// newMeter returns a meter drawing on w, a terminal when w is one (TERM
// not "dumb"); quiet draws nothing.
func newMeter(w io.Writer, quiet bool) *meter {
	m := &meter{w: w, quiet: quiet, width: 100, stop: make(chan struct{}), done: make(chan struct{})}
	if f, ok := w.(*os.File); ok && os.Getenv("TERM") != "dumb" && term.IsTerminal(int(f.Fd())) {
		m.tty = true
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 20 {
			m.width = cols
		}
	}
	if quiet {
		close(m.done)
		return m
	}
	go m.run()
	return m
}

// run redraws the live line, or prints the plain lines, until close.
func (m *meter) run() {
	defer close(m.done)
	period := liveRedraw
	if !m.tty {
		period = min(plainEvery, time.Second)
	}
	t := time.NewTicker(max(period, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.mu.Lock()
			m.tick(time.Now())
			m.mu.Unlock()
		}
	}
}

// close stops the meter and clears its live line.
func (m *meter) close() {
	if !m.quiet {
		select {
		case <-m.stop:
		default:
			close(m.stop)
		}
	}
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	m.clear()
	m.active = nil
}

// tick draws the running stages as they stand at now.
func (m *meter) tick(now time.Time) {
	if m.quiet {
		return
	}
	m.ticked = now
	if m.tty {
		var parts []string
		for _, s := range m.visible() {
			if now.Sub(s.start) >= liveDelay {
				s.shown = true
				parts = append(parts, s.render(now))
			}
		}
		if len(parts) == 0 {
			return
		}
		line := strings.Join(parts, " | ")
		if r := []rune(line); len(r) > m.width-1 {
			line = string(r[:m.width-2]) + "…"
		}
		fmt.Fprintf(m.w, "\r%s\x1b[K", line)
		m.drawn = true
		return
	}
	for _, s := range m.visible() {
		from := s.last
		if from.IsZero() {
			from = s.start
		}
		if now.Sub(from) >= plainEvery {
			s.shown, s.last = true, now
			fmt.Fprintf(m.w, "cuzk: %s\n", s.render(now))
		}
	}
}

// visible lists the running stages worth a place on the line: a stage
// without counts whose parts report their own ("load params" while "load
// params: decode" runs) gives way to them.
func (m *meter) visible() []*stageState {
	var out []*stageState
	for _, s := range m.active {
		covered := false
		if s.total == 0 && s.done == 0 {
			for _, o := range m.active {
				if o != s && strings.HasPrefix(o.name, s.name+": ") {
					covered = true
				}
			}
		}
		if !covered {
			out = append(out, s)
		}
	}
	return out
}

// clear erases the live line.
func (m *meter) clear() {
	if m.drawn {
		fmt.Fprint(m.w, "\r\x1b[K")
		m.drawn = false
	}
}

func (m *meter) find(name string) *stageState {
	for _, s := range m.active {
		if s.name == name {
			return s
		}
	}
	return nil
}

// begin starts the named stage, without counts until events come.
func (m *meter) begin(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.find(name) == nil {
		m.active = append(m.active, &stageState{name: name, start: time.Now()})
	}
}

// end ends the named stage: a stage that was shown gets its last line.
func (m *meter) end(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.finish(name, time.Now())
}

func (m *meter) finish(name string, now time.Time) {
	for i, s := range m.active {
		if s.name != name {
			continue
		}
		m.active = append(m.active[:i], m.active[i+1:]...)
		if s.shown && !m.quiet {
			if m.tty {
				fmt.Fprintf(m.w, "\r%s\x1b[K\n", s.final(now))
				m.drawn = false
			} else {
				fmt.Fprintf(m.w, "cuzk: %s\n", s.final(now))
			}
		}
		return
	}
}

// events returns a progress.Func for a library call: each event's stage
// is shown as "prefix: stage" (or the stage alone when prefix is empty).
// Done never goes back within a stage; a final event ends the stage.
func (m *meter) events(prefix string) progress.Func {
	return func(e progress.Event) {
		name := e.Stage
		if prefix != "" {
			name = prefix + ": " + e.Stage
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		now := time.Now()
		s := m.find(name)
		if s == nil {
			s = &stageState{name: name, start: now}
			m.active = append(m.active, s)
		}
		if e.Done < s.done {
			return
		}
		s.step, s.total, s.unit = e.Step, e.Total, e.Unit
		s.observe(e.Done, now)
		switch {
		case e.Final():
			m.finish(name, now)
		case !m.tty || now.Sub(m.ticked) >= liveRedraw:
			// news drawn at once, the live line at most every liveRedraw
			// (a plain line comes only every plainEvery anyway)
			m.tick(now)
		}
	}
}

// stage runs fn as the named stage: shown while it runs, timed for the
// summary.
func (m *meter) stage(name string, fn func() error) error {
	m.begin(name)
	start := time.Now()
	err := fn()
	d := time.Since(start)
	m.end(name)
	m.mu.Lock()
	m.times = append(m.times, timing{name: name, d: d})
	m.mu.Unlock()
	return err
}

// record adds a stage timed elsewhere to the summary.
func (m *meter) record(name string, d time.Duration, note string) {
	m.mu.Lock()
	m.times = append(m.times, timing{name: name, d: d, note: note})
	m.mu.Unlock()
}

// warnf writes a warning on the meter's output, clearing the live line
// first; --quiet does not silence it.
func (m *meter) warnf(format string, a ...any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.clear()
	fmt.Fprintf(m.w, format, a...)
}

// logWriter is the meter's output (stderr) for log lines, clearing the
// live line before each.
func (m *meter) logWriter() io.Writer {
	if m.quiet || !m.tty {
		return m.w
	}
	return clearingWriter{m: m, w: m.w}
}

// writer returns w made to clear the live line before each write, so
// that the command's own output does not land in the middle of it.
func (m *meter) writer(w io.Writer) io.Writer {
	if m.quiet || !m.tty {
		return w
	}
	return clearingWriter{m: m, w: w}
}

type clearingWriter struct {
	m *meter
	w io.Writer
}

func (c clearingWriter) Write(p []byte) (int, error) {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	c.m.clear()
	return c.w.Write(p)
}

// render writes a running stage: "load params: subgroup  45%
// 1.23M/2.70M points  310k points/s  ETA 5s  4.1s"; a proof's stages,
// counted in expected work, show the share done and the ETA alone:
// "prove  msm l  42%  ETA 3s  1.5s". The rate and the ETA come once the
// rate is steady (observe).
func (s *stageState) render(now time.Time) string {
	parts := []string{s.name}
	if s.step != "" {
		parts = append(parts, s.step)
	}
	switch {
	case s.total > 0 && s.unit == progress.Work:
		parts = append(parts, fmt.Sprintf("%d%%", 100*s.done/s.total))
	case s.total > 0:
		parts = append(parts, fmt.Sprintf("%d%%", 100*s.done/s.total), fmt.Sprintf("%s/%s%s", qty(s.done, s.unit), qty(s.total, s.unit), label(s.unit)))
	case s.done > 0:
		parts = append(parts, qty(s.done, s.unit)+label(s.unit))
	}
	if s.steady() && s.unit != progress.Stages {
		if s.unit != progress.Work {
			parts = append(parts, fmt.Sprintf("%s%s/s", qty(int64(s.rate), s.unit), label(s.unit)))
		}
		if s.total > s.done {
			parts = append(parts, "ETA "+units.Duration(time.Duration(float64(s.total-s.done)/s.rate*float64(time.Second))))
		}
	}
	parts = append(parts, units.Duration(now.Sub(s.start)))
	return strings.Join(parts, "  ")
}

// final writes an ended stage: "load params: subgroup  2.70M points in
// 8.7s (310k points/s)".
func (s *stageState) final(now time.Time) string {
	elapsed := now.Sub(s.start)
	out := s.name + ": done"
	counted := s.done > 0 && s.unit != "" && s.unit != progress.Work
	if counted {
		out += ", " + qty(s.done, s.unit) + label(s.unit)
	}
	out += " in " + units.Duration(elapsed)
	if counted && s.unit != progress.Stages && elapsed > 0 {
		out += fmt.Sprintf(" (%s%s/s)", qty(int64(float64(s.done)/elapsed.Seconds()), s.unit), label(s.unit))
	}
	return out
}

// label writes the unit after a count: " points"; bytes carry theirs
// ("540 MiB").
func label(unit string) string {
	if unit == progress.Bytes || unit == "" {
		return ""
	}
	return " " + unit
}

// qty writes a count: bytes in binary units ("540 MiB"), others with a
// decimal suffix ("1.23M").
func qty(n int64, unit string) string {
	if unit == progress.Bytes {
		return units.Bytes(uint64(max(n, 0)))
	}
	v, suffixes := float64(n), []string{"", "k", "M", "G", "T"}
	i := 0
	for v >= 1000 && i < len(suffixes)-1 {
		v, i = v/1000, i+1
	}
	if i == 0 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%.3g%s", v, suffixes[i])
}

// printTimes writes the summary of the stages run: each with its time and
// share of total, the note after.
func printTimes(w io.Writer, times []timing, total time.Duration) {
	width := 0
	for _, t := range times {
		width = max(width, len(t.name))
	}
	for _, t := range times {
		share := 0.0
		if total > 0 {
			share = 100 * float64(t.d) / float64(total)
		}
		fmt.Fprintf(w, "  %-*s  %9s  %5.1f%%", width, t.name, units.Duration(t.d), share)
		if t.note != "" {
			fmt.Fprintf(w, "  %s", t.note)
		}
		fmt.Fprintln(w)
	}
}
