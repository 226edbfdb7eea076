package params

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/progress"
)

// rangeChecker stands for a device that checks a section range by range
// as it is decoded (a RangeChecker): each range is checked on the CPU over
// the section's slice at the time of the call (so a range not yet decoded
// would fail), and the ranges, sections begun and Done calls are logged.
type rangeChecker struct {
	deviceChecker
	mu     sync.Mutex
	begun  map[string]int            // section → its length at Begin
	at     map[string]unsafe.Pointer // section → its points' first element
	ranges map[string][][2]int
	fills  map[string][][2]int // ranges taken unchecked (Fill)
	done   map[string][]bool   // section → its Done calls
	// slow makes each Check take a millisecond; running and most count
	// the Check calls in progress, and the most at once
	slow          bool
	running, most int
}

func newRangeChecker() *rangeChecker {
	return &rangeChecker{begun: map[string]int{}, at: map[string]unsafe.Pointer{}, ranges: map[string][][2]int{}, fills: map[string][][2]int{}, done: map[string][]bool{}}
}

type loggedSection struct {
	c     *rangeChecker
	name  string
	check func(from, to int) int
}

func (s loggedSection) Check(from, to int) (int, error) {
	s.c.mu.Lock()
	s.c.ranges[s.name] = append(s.c.ranges[s.name], [2]int{from, to})
	s.c.running++
	s.c.most = max(s.c.most, s.c.running)
	slow := s.c.slow
	s.c.mu.Unlock()
	if slow {
		time.Sleep(time.Millisecond)
	}
	bad := s.check(from, to)
	s.c.mu.Lock()
	s.c.running--
	s.c.mu.Unlock()
	return bad, nil
}

func (s loggedSection) Fill(from, to int) error {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	s.c.fills[s.name] = append(s.c.fills[s.name], [2]int{from, to})
	return nil
}

func (s loggedSection) Done(complete bool) {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	s.c.done[s.name] = append(s.c.done[s.name], complete)
}

// begin names a section by its order of Begin calls, which follows the
// range workers (not the file); names maps them onto the key's sections.
func (c *rangeChecker) begin(group string, n int, at unsafe.Pointer, check func(from, to int) int) SectionCheck {
	c.mu.Lock()
	defer c.mu.Unlock()
	name := group + string(rune('0'+len(c.begun)))
	c.begun[name] = n
	c.at[name] = at
	return loggedSection{c: c, name: name, check: check}
}

// names returns the names the checker gave pk's H, L, A, B_G1 and B_G2
// sections ("" where one was not begun), by the points each was begun on.
func (c *rangeChecker) names(pk *ProvingKey) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, at := range []unsafe.Pointer{unsafe.Pointer(unsafe.SliceData(pk.H)), unsafe.Pointer(unsafe.SliceData(pk.L)),
		unsafe.Pointer(unsafe.SliceData(pk.A)), unsafe.Pointer(unsafe.SliceData(pk.BG1)), unsafe.Pointer(unsafe.SliceData(pk.BG2))} {
		name := ""
		for n, p := range c.at {
			if p == at {
				name = n
			}
		}
		out = append(out, name)
	}
	return out
}

func (c *rangeChecker) BeginG1(p []bls.G1Affine) SectionCheck {
	return c.begin("g1-", len(p), unsafe.Pointer(unsafe.SliceData(p)), func(from, to int) int {
		if bad, _ := (CPUChecker{}).CheckSubgroupG1(p[from:to]); bad >= 0 {
			return from + bad
		}
		return -1
	})
}

func (c *rangeChecker) BeginG2(p []bls.G2Affine) SectionCheck {
	return c.begin("g2-", len(p), unsafe.Pointer(unsafe.SliceData(p)), func(from, to int) int {
		if bad, _ := (CPUChecker{}).CheckSubgroupG2(p[from:to]); bad >= 0 {
			return from + bad
		}
		return -1
	})
}

// smallBlocks splits sections into ranges of a point or two.
func smallBlocks(t *testing.T) {
	old := minDecodeBlock
	minDecodeBlock = 1
	t.Cleanup(func() { minDecodeBlock = old })
}

// A checker that takes ranges gets every query section range by range,
// each range once and together the whole section, only the verifying key
// whole; each section's check ends complete once the key passed.
func TestRangedCheckCoversEachSection(t *testing.T) {
	smallBlocks(t)
	_, path := keyFile(t, 41)
	chk := newRangeChecker()
	pk, info, err := ReadProvingKeyInfo(path, Options{Checker: chk, NbTasks: 2})
	require.NoError(t, err)
	require.Equal(t, ValidationChecked, info.Validation)
	lens := []int{len(pk.H), len(pk.L), len(pk.A), len(pk.BG1), len(pk.BG2)}
	require.Len(t, chk.begun, 5)
	requireCovered(t, pk, chk, true)
	for i, name := range chk.names(pk) {
		require.Equal(t, lens[i], chk.begun[name], name)
		require.Empty(t, chk.fills[name], "%s: every range checked", name)
		require.Greater(t, len(chk.ranges[name]), 1, "%s: split into ranges", name)
	}
	// Only the verifying key's points went to the whole-set calls (on the
	// CPU, not the device).
	require.Empty(t, chk.calls)
}

// A device's ranges go to it from rangeWorkers goroutines, so that one's
// check is queued while the others copy and come back; beside them the
// decode leaves as many cores on hosts large enough.
func TestRangesCheckedThreeAtOnce(t *testing.T) {
	smallBlocks(t)
	_, path := keyFile(t, 49)
	chk := newRangeChecker()
	chk.slow = true
	pk, info, err := ReadProvingKeyInfo(path, Options{Checker: chk, NbTasks: 2})
	require.NoError(t, err)
	require.Equal(t, ValidationChecked, info.Validation)
	require.Equal(t, rangeWorkers, chk.most, "checks in flight at once")
	requireCovered(t, pk, chk, true)
	require.Equal(t, 13, decodeTasks(16))
	require.Equal(t, 12, decodeTasks(15))
	require.Equal(t, 9, decodeTasks(12))
	require.Equal(t, 11, decodeTasks(11))
	require.Equal(t, 2, decodeTasks(2))
}

// With ranges the error is still the sequential one: the first point off
// the subgroup in file order (of two in one section, the lower index,
// whichever range is checked first), or a format or curve error before
// it; every section begun ends incomplete.
func TestRangedErrorIsFirstBadPoint(t *testing.T) {
	smallBlocks(t)
	pk := randomKey(rand.New(rand.NewPCG(43, 44)))
	put, flip := keyEdits(pk)
	cases := []badKey{
		{"two in one section", func(b []byte) { put(b, "h", 5, offSubgroupG1(t)); put(b, "h", 2, offSubgroupG1(t)) }, "params: h[2]: point not in the prime-order subgroup", false},
		{"two sections", func(b []byte) { put(b, "b_g2", 0, offSubgroupG2(t)); put(b, "a", 3, offSubgroupG1(t)) }, "params: a[3]: point not in the prime-order subgroup", false},
		{"off subgroup then off curve", func(b []byte) { put(b, "h", 6, offSubgroupG1(t)); flip(b, "b_g1", 1) }, "params: b_g1[1]: point not on curve", false},
		{"only b_g2", func(b []byte) { put(b, "b_g2", 1, offSubgroupG2(t)) }, "params: b_g2[1]: point not in the prime-order subgroup", false},
	}
	eachBadKey(t, keyBytes(t, pk), cases, func(t *testing.T, _ badKey, path string, _ []byte, want error) {
		for range 10 {
			chk := newRangeChecker()
			_, err := ReadProvingKey(path, Options{Checker: chk, NbTasks: 2})
			require.Equal(t, want.Error(), err.Error())
			for name, d := range chk.done {
				require.Equal(t, []bool{false}, d, "%s ends incomplete", name)
			}
			require.Len(t, chk.done, len(chk.ranges), "every section checked is ended")
		}
	})
}

// A record hit stops the ranged check, not the ranges: each section's
// ranges are checked or, once the record vouches, only filled, together
// covering the section once, and every section ends complete (the device
// keeps what it took). The load is valid by the record.
func TestRangedCheckVouchedOnRecordHit(t *testing.T) {
	smallBlocks(t)
	dir, path := keyFile(t, 45)
	rec := OpenRecord(dir, nil)
	require.NoError(t, rec.AddFile(path, ValidationSetup, 0))
	// A copy the record's stamp does not know: found by its content key,
	// hashed while it decodes.
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	other := filepath.Join(t.TempDir(), "copy.params")
	require.NoError(t, os.WriteFile(other, data, 0o644))
	chk := newRangeChecker()
	pk, info, err := ReadProvingKeyInfo(other, Options{Checker: chk, Record: rec, NbTasks: 2})
	require.NoError(t, err)
	require.Equal(t, ValidationRecord, info.Validation)
	requireCovered(t, pk, chk, true)
}

// A trusted file, or one whose stamp the record knows, is not checked,
// but a device that takes ranges still takes every one as it decodes, to
// keep: the key goes up once, beside the decoding.
func TestUncheckedLoadsFillTheDevice(t *testing.T) {
	smallBlocks(t)
	dir, path := keyFile(t, 47)
	chk := newRangeChecker()
	pk, info, err := ReadProvingKeyInfo(path, Options{Checker: chk, SkipSubgroupCheck: true, NbTasks: 2})
	require.NoError(t, err)
	require.Equal(t, ValidationSkipped, info.Validation)
	requireCovered(t, pk, chk, false)

	rec := OpenRecord(dir, nil)
	rec.racy = 0 // the file is new: stamp it anyway
	require.NoError(t, rec.AddFile(path, ValidationSetup, 0))
	chk = newRangeChecker()
	pk, info, err = ReadProvingKeyInfo(path, Options{Checker: chk, Record: rec, NbTasks: 2})
	require.NoError(t, err)
	require.Equal(t, ValidationRecord, info.Validation)
	require.True(t, info.Stamped)
	requireCovered(t, pk, chk, false)
}

// requireCovered: the checker took every query section of the loaded key
// pk range by range, checked (when mayCheck) or filled, each point once,
// and every section ended complete.
func requireCovered(t *testing.T, pk *ProvingKey, chk *rangeChecker, mayCheck bool) {
	t.Helper()
	lens := []int{len(pk.H), len(pk.L), len(pk.A), len(pk.BG1), len(pk.BG2)}
	for i, name := range chk.names(pk) {
		require.NotEmpty(t, name, "section %d begun", i)
		rs := append(append([][2]int(nil), chk.ranges[name]...), chk.fills[name]...)
		if !mayCheck {
			require.Empty(t, chk.ranges[name], "%s: nothing checked", name)
		}
		sort.Slice(rs, func(a, b int) bool { return rs[a][0] < rs[b][0] })
		at := 0
		for _, r := range rs {
			require.Equal(t, at, r[0], "%s: ranges in order, without gap or overlap", name)
			at = r[1]
		}
		require.Equal(t, lens[i], at, "%s: the ranges cover the section", name)
		require.Equal(t, []bool{true}, chk.done[name], "%s: ended once, complete", name)
	}
}

// gatedChecker is a device whose checks and fills wait for its gate, and
// that records the most range bytes it was handed and had not finished.
type gatedChecker struct {
	deviceChecker
	gate chan struct{}
}

type gatedSection struct{ gate chan struct{} }

func (s gatedSection) Check(int, int) (int, error) { <-s.gate; return -1, nil }
func (s gatedSection) Fill(int, int) error         { <-s.gate; return nil }
func (gatedSection) Done(bool)                     {}

func (c *gatedChecker) BeginG1([]bls.G1Affine) SectionCheck { return gatedSection{c.gate} }
func (c *gatedChecker) BeginG2([]bls.G2Affine) SectionCheck { return gatedSection{c.gate} }

// The decoder runs ahead of a device by maxPending bytes at most: while
// the device takes nothing, decoding stops there, and goes on once it
// takes the ranges.
func TestDecodeWaitsForTheDevice(t *testing.T) {
	smallBlocks(t)
	old := maxPending
	maxPending = 8 * int64(unsafe.Sizeof(bls.G1Affine{}))
	t.Cleanup(func() { maxPending = old })
	_, path := keyFile(t, 49)
	var decoded atomic.Int64
	progress := func(e progress.Event) {
		if e.Stage == StageDecode {
			decoded.Store(e.Done)
		}
	}
	chk := &gatedChecker{gate: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		_, _, err := ReadProvingKeyInfo(path, Options{Checker: chk, NbTasks: 2, Progress: progress})
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	size, err := os.Stat(path)
	require.NoError(t, err)
	require.Less(t, decoded.Load(), size.Size()/2, "the decoder waits for the device")
	select {
	case err := <-done:
		t.Fatalf("the load ended while the device took nothing: %v", err)
	default:
	}
	close(chk.gate)
	require.NoError(t, <-done)
	require.Equal(t, size.Size(), decoded.Load())
}
