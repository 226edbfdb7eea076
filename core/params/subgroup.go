package params

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk/cuzk/core/internal/par"
	"github.com/cuzk/cuzk/core/progress"
)

// SubgroupChecker tests that points already known to be on the curve lie
// in the prime-order subgroup. A device backend may offer one; CPUChecker
// always works. firstBad is the lowest index of a point outside the
// subgroup, or -1 when all are in it; err reports a failure of the checker
// itself (the points are then unknown, never trusted).
type SubgroupChecker interface {
	CheckSubgroupG1(points []bls.G1Affine) (firstBad int, err error)
	CheckSubgroupG2(points []bls.G2Affine) (firstBad int, err error)
}

// CPUChecker checks points with gnark-crypto's IsInSubGroup, spread over
// NbTasks goroutines (0 = GOMAXPROCS). It is the cost the loader avoids
// where it can: ~48 µs of one core per G1 point, 300 s for a 9.6 GB file
// on 16 cores against 4.5 s for the curve checks alone.
type CPUChecker struct {
	NbTasks int
}

// CheckSubgroupG1 implements SubgroupChecker.
func (c CPUChecker) CheckSubgroupG1(points []bls.G1Affine) (int, error) {
	return c.checkG1(points, nil), nil
}

// CheckSubgroupG2 implements SubgroupChecker.
func (c CPUChecker) CheckSubgroupG2(points []bls.G2Affine) (int, error) {
	return c.checkG2(points, nil), nil
}

func (c CPUChecker) checkG1(points []bls.G1Affine, done func(int)) int {
	return firstFailing(len(points), c.NbTasks, func(i int) bool { return points[i].IsInSubGroup() }, done)
}

func (c CPUChecker) checkG2(points []bls.G2Affine, done func(int)) int {
	return firstFailing(len(points), c.NbTasks, func(i int) bool { return points[i].IsInSubGroup() }, done)
}

// cpuBlock is how many points a goroutine of the CPU check tells of at a
// time: ~50 ms of one core for G1 points (~48 µs each), so that progress
// moves as the work is done. A 2^18-point chunk's single report once left
// a 2^18-parameter load's first check at "9/1.22M points" for 18 s on 2
// cores, then jumping by 262k.
const cpuBlock = 1024

// firstFailing returns the lowest i in [0, n) with !ok(i), or -1; done,
// when set, is told of each block of points checked as it ends (from the
// goroutines, at once).
func firstFailing(n, nbTasks int, ok func(i int) bool, done func(int)) int {
	if nbTasks <= 0 {
		nbTasks = runtime.GOMAXPROCS(0)
	}
	nbTasks = max(1, min(nbTasks, n))
	bad := make([]int, nbTasks)
	par.Ranges(nbTasks, n, func(t, from, to int) {
		bad[t] = -1
		for i := from; i < to; i++ {
			if !ok(i) {
				bad[t] = i
				return
			}
			if done != nil && (i-from+1)%cpuBlock == 0 {
				done(cpuBlock)
			}
		}
		if done != nil && (to-from)%cpuBlock != 0 {
			done((to - from) % cpuBlock)
		}
	})
	for _, b := range bad {
		if b >= 0 {
			return b
		}
	}
	return -1
}

// RangeChecker is a SubgroupChecker that can check a query section range
// by range while it is decoded (a device's: each range goes up into the
// section's resident copy and is checked there, beside the decoding of
// the next ranges), instead of whole once it is decoded.
type RangeChecker interface {
	SubgroupChecker
	// BeginG1 starts the check of points, whose contents are decoded
	// afterwards, range by range.
	BeginG1(points []bls.G1Affine) SectionCheck
	// BeginG2 is BeginG1 for G2.
	BeginG2(points []bls.G2Affine) SectionCheck
}

// SectionCheck is one section's check, range by range.
type SectionCheck interface {
	// Check checks points [from, to) of the section, which are decoded;
	// firstBad is the least index (in the section) of one outside the
	// subgroup, or -1. Ranges may be checked from several goroutines.
	Check(from, to int) (firstBad int, err error)
	// Fill takes points [from, to) without checking them: their contents
	// are known valid (a record or the caller vouches), and the device
	// keeps them for the MSMs as it keeps checked ones.
	Fill(from, to int) error
	// Done ends the check once no Check is running: complete when every
	// range was checked and passed and the key is kept (the device may
	// keep the points it received); otherwise what was received is
	// dropped.
	Done(complete bool)
}

// checkChunk is the number of points given to a checker per call: large
// enough that a device's launch costs vanish (24 MB of G1 points), small
// enough that progress moves every few seconds on a CPU.
const checkChunk = 1 << 18

// subgroupSet is one section of a key for the checker.
type subgroupSet struct {
	name string
	g1   []bls.G1Affine
	g2   []bls.G2Affine
	// vk: a verifying-key section (a few points and IC, one per input):
	// checked on the CPU in milliseconds, never uploaded (no MSM uses it).
	vk bool
	// pos is the section's place in the file: when several sections hold
	// a point outside the subgroup, the first in the file is reported.
	pos int
	// ranged, when set, makes this item the range [from, to) of a
	// section checked range by range (a RangeChecker's); g1 or g2 is then
	// the whole section.
	ranged   *rangedSection
	from, to int
}

// rangedSection is a query section checked range by range: its check is
// begun by the first range checked.
type rangedSection struct {
	once  sync.Once
	check SectionCheck
}

func (r *rangedSection) begin(c RangeChecker, s subgroupSet) SectionCheck {
	r.once.Do(func() {
		if s.g1 != nil {
			r.check = c.BeginG1(s.g1)
		} else {
			r.check = c.BeginG2(s.g2)
		}
	})
	return r.check
}

func (s subgroupSet) len() int { return len(s.g1) + len(s.g2) }

// subgroupSets returns pk's sections in file order, the order in which
// the decoder hands them to an overlapped check (so that either way the
// first failing point is the same).
func subgroupSets(pk *ProvingKey) []subgroupSet {
	return append(vkSets(&pk.VerifyingKey), querySets(pk)...)
}

func vkSets(vk *VerifyingKey) []subgroupSet {
	return numbered(0, []subgroupSet{
		{name: "alpha_g1", g1: []bls.G1Affine{vk.Alpha1}, vk: true},
		{name: "beta_g1", g1: []bls.G1Affine{vk.Beta1}, vk: true},
		{name: "beta_g2", g2: []bls.G2Affine{vk.Beta2}, vk: true},
		{name: "gamma_g2", g2: []bls.G2Affine{vk.Gamma2}, vk: true},
		{name: "delta_g1", g1: []bls.G1Affine{vk.Delta1}, vk: true},
		{name: "delta_g2", g2: []bls.G2Affine{vk.Delta2}, vk: true},
		{name: "ic", g1: vk.IC, vk: true},
	})
}

// numbered sets the sets' file positions, from first.
func numbered(first int, sets []subgroupSet) []subgroupSet {
	for i := range sets {
		sets[i].pos = first + i
	}
	return sets
}

func querySets(pk *ProvingKey) []subgroupSet {
	return numbered(7, []subgroupSet{
		{name: "h", g1: pk.H},
		{name: "l", g1: pk.L},
		{name: "a", g1: pk.A},
		{name: "b_g1", g1: pk.BG1},
		{name: "b_g2", g2: pk.BG2},
	})
}

// nbSets is the number of sections of a key.
var nbSets = len(subgroupSets(&ProvingKey{}))

// CheckSubgroups runs c over every point of pk in chunks, reporting
// progress (stage "subgroup", in points) after each. The error names the
// first point found outside the subgroup, wrapping ErrNotInGroup.
func CheckSubgroups(pk *ProvingKey, c SubgroupChecker, report progress.Func) error {
	sets := subgroupSets(pk)
	sc := &setChecker{c: c, progress: report}
	for _, s := range sets {
		sc.total += int64(s.len())
	}
	for _, s := range sets {
		if err := sc.check(s, nil, false); err != nil {
			return err
		}
	}
	return nil
}

// errAbandoned ends a check that was stopped before it finished.
var errAbandoned = errors.New("params: subgroup check abandoned")

// setChecker checks sections one after another, reporting progress over
// total points.
type setChecker struct {
	c        SubgroupChecker
	progress progress.Func
	total    int64
	done     atomic.Int64
}

// check checks s; stopped, when set, is polled between checker calls.
// The error of a point outside the subgroup wraps a *badPoint.
func (sc *setChecker) check(s subgroupSet, stopped func() bool, fill bool) error {
	if s.ranged != nil {
		return sc.checkRange(s, stopped, fill)
	}
	if fill {
		return nil // vouched for, and nothing to keep
	}
	cpu, onCPU := sc.c.(CPUChecker)
	// A device checker gets each query whole: it uploads the very slices
	// the MSMs later use, once, and they stay resident for them (a chunk
	// would be a second, separate upload). The verifying key's few points
	// are checked here, on the CPU.
	chunk, checker := checkChunk, sc.c
	if !onCPU {
		chunk = max(1, s.len())
		if s.vk {
			checker = CPUChecker{}
		}
	}
	for from := 0; from < s.len(); from += chunk {
		if stopped != nil && stopped() {
			return errAbandoned
		}
		to := min(from+chunk, s.len())
		var bad int
		var err error
		switch {
		case onCPU && s.g1 != nil:
			// reported block by block, as the goroutines finish them
			bad = cpu.checkG1(s.g1[from:to], sc.report)
		case onCPU:
			bad = cpu.checkG2(s.g2[from:to], sc.report)
		case s.g1 != nil:
			bad, err = checker.CheckSubgroupG1(s.g1[from:to])
		default:
			bad, err = checker.CheckSubgroupG2(s.g2[from:to])
		}
		if err != nil {
			return fmt.Errorf("params: %s: subgroup check: %w", s.name, err)
		}
		if bad >= 0 {
			return notInGroup(s, from+bad)
		}
		if !onCPU {
			sc.report(to - from)
		}
	}
	return nil
}

// checkRange checks the range item s of a ranged section, or only fills
// it when fill says so.
func (sc *setChecker) checkRange(s subgroupSet, stopped func() bool, fill bool) error {
	if stopped != nil && stopped() {
		return errAbandoned
	}
	c := s.ranged.begin(sc.c.(RangeChecker), s)
	if fill {
		if err := c.Fill(s.from, s.to); err != nil {
			return &badPoint{index: s.from, err: fmt.Errorf("params: %s: upload: %w", s.name, err)}
		}
		return nil
	}
	bad, err := c.Check(s.from, s.to)
	if err != nil {
		return &badPoint{index: s.from, err: fmt.Errorf("params: %s: subgroup check: %w", s.name, err)}
	}
	if bad >= 0 {
		return notInGroup(s, bad)
	}
	sc.report(s.to - s.from)
	return nil
}

func (sc *setChecker) report(points int) {
	done := sc.done.Add(int64(points))
	sc.progress.Report(progress.Event{Stage: StageSubgroup, Done: done, Total: sc.total, Unit: progress.Points})
}

// badPoint is a failure at a point of a section (outside the subgroup, or
// the checker's failure over a range from there): of two in one section
// the lower index is reported.
type badPoint struct {
	index int
	err   error
}

func (b *badPoint) Error() string { return b.err.Error() }
func (b *badPoint) Unwrap() error { return b.err }

func notInGroup(s subgroupSet, i int) error {
	if s.len() == 1 {
		return &badPoint{index: i, err: fmt.Errorf("params: %s: %w", s.name, ErrNotInGroup)}
	}
	return &badPoint{index: i, err: fmt.Errorf("params: %s[%d]: %w", s.name, i, ErrNotInGroup)}
}

// failIndex is err's point index in its section (0 when none is known).
func failIndex(err error) int {
	var b *badPoint
	if errors.As(err, &b) {
		return b.index
	}
	return 0
}

// sectionChecks checks a key's sections in the order the decoder hands
// them over, while the decoder goes on with the next ones: a first load
// then costs about the decode plus the check of what was decoded last, not
// the decode plus the whole check. A RangeChecker gets each query section
// range by range as the decoder finishes them (ranged), so that the
// device's checks run beside the decoding of the same section; another
// checker gets whole sections. A device checker gets two goroutines, so
// that one range's upload runs beside the other's kernels (on the CPU one
// goroutine: the checker is parallel within a section).
type sectionChecks struct {
	mu     sync.Mutex
	cond   *sync.Cond
	queue  []subgroupSet    // handed over, not yet taken: the decoder never waits
	closed bool             // no more items
	ranged []*rangedSection // the ranged sections begun, for Done
	rc     RangeChecker     // set: query sections are checked range by range
	stop   chan struct{}    // closed to abandon the check
	// fill: the contents are vouched for; ranges are only handed to the
	// device, which keeps them (the check of a record hit, or none).
	fill atomic.Bool
	// pending is the bytes of ranges handed to a range checker and not
	// yet done with (guarded by mu), at most limit (0: no bound) unless
	// one alone is more: the decoder waits for the device (space).
	pending, limit int64
	space          *sync.Cond
	once           sync.Once
	done           chan struct{} // closed when the goroutine has returned
	err            error         // valid once done is closed
	first          time.Time     // the first checker call's start (guarded by mu)
	busy           atomic.Int64  // nanoseconds in checker calls
}

// timing returns when the first checker call started, from t0, and the
// time spent in checker calls; valid once finish returned.
func (s *sectionChecks) timing(t0 time.Time) (start, busy time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.first.IsZero() {
		start = s.first.Sub(t0)
	}
	return start, time.Duration(s.busy.Load())
}

// startChecks starts checking with c the sections given to add, once
// ready is closed (nil: at once); total is the number of points of the
// whole key, for progress.
func startChecks(c SubgroupChecker, total int64, report progress.Func, ready <-chan struct{}) *sectionChecks {
	return begin(c, total, report, ready, false)
}

// begin is startChecks, only filling from the start when fill is set.
func begin(c SubgroupChecker, total int64, report progress.Func, ready <-chan struct{}, fill bool) *sectionChecks {
	s := &sectionChecks{stop: make(chan struct{}), done: make(chan struct{})}
	s.fill.Store(fill)
	s.cond = sync.NewCond(&s.mu)
	s.space = sync.NewCond(&s.mu)
	sc := &setChecker{c: c, progress: report, total: total}
	workers := 2
	if _, onCPU := c.(CPUChecker); onCPU {
		workers = 1
	} else if rc, ok := c.(RangeChecker); ok {
		s.rc, s.limit = rc, maxPending
		workers = rangeWorkers
	}
	go func() {
		defer close(s.done)
		if ready != nil {
			select {
			case <-ready:
			case <-s.stop:
			}
		}
		// After a failure only the items before it in the file are
		// checked, and of two failures the one earlier in the file wins,
		// whatever its kind: the error names the first point outside the
		// subgroup in file order (section, then index), or a device error
		// that came before it (items are handed over in file order, two
		// checked at once).
		var mu sync.Mutex
		failed, failedAt := nbSets, 0
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					set, ok := s.take()
					if !ok {
						return
					}
					mu.Lock()
					skip := set.pos > failed || set.pos == failed && set.from > failedAt
					mu.Unlock()
					if skip {
						s.doneWith(set)
						continue
					}
					t := time.Now()
					s.mu.Lock()
					if s.first.IsZero() && !set.vk {
						s.first = t
					}
					s.mu.Unlock()
					err := sc.check(set, s.stopped, s.fill.Load())
					s.doneWith(set)
					s.busy.Add(int64(time.Since(t)))
					if err != nil {
						at := failIndex(err)
						mu.Lock()
						if set.pos < failed || set.pos == failed && at < failedAt {
							s.err, failed, failedAt = err, set.pos, at
						}
						mu.Unlock()
					}
				}
			}()
		}
		wg.Wait()
		if s.err != nil {
			return
		}
		if s.stopped() {
			s.err = errAbandoned // finished only because the sets ran out early
		}
	}()
	return s
}

// take returns the next item, waiting for one; false once closed and
// empty.
func (s *sectionChecks) take() (subgroupSet, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.queue) == 0 && !s.closed {
		s.cond.Wait()
	}
	if len(s.queue) == 0 {
		return subgroupSet{}, false
	}
	set := s.queue[0]
	s.queue = s.queue[1:]
	return set, true
}

// rangeWorkers is the goroutines handing a device its ranges: while one
// copies a range up and another comes back from its call, a third's
// check is queued on the device (with two the device could wait between
// checks: cuda/NOTES.md section 9).
const rangeWorkers = 3

// decodeTasks is the decoding goroutines beside a device's range checks
// on procs cores: all but rangeWorkers on hosts of 4·rangeWorkers cores
// or more, so that a worker back from the device finds a core at once
// (the device, not the decode, is then the pace); else procs.
func decodeTasks(procs int) int {
	if procs >= 4*rangeWorkers {
		return procs - rangeWorkers
	}
	return procs
}

// maxPending bounds the decoded bytes a device has been handed and not
// yet done with (sectionChecks.pending): the decoder runs ahead of the
// device's uploads by at most this, so that a load holds about this much
// of a key on the host beside the file however slow the link (tests
// lower it). At ~20 GB/s of uploads it is ~50 ms of the device's work.
var maxPending int64 = 1 << 30

// add hands over a decoded section, or a decoded range of a ranged one;
// a range waits while the device has maxPending bytes before it.
func (s *sectionChecks) add(set subgroupSet) {
	s.mu.Lock()
	if n := set.pendingBytes(); n > 0 && s.limit > 0 {
		for s.pending > 0 && s.pending+n > s.limit && !s.closed && !s.stopped() {
			s.space.Wait()
		}
		s.pending += n
	}
	s.queue = append(s.queue, set)
	s.mu.Unlock()
	s.cond.Signal()
}

// doneWith ends what set counted in pending.
func (s *sectionChecks) doneWith(set subgroupSet) {
	if n := set.pendingBytes(); n > 0 && s.limit > 0 {
		s.mu.Lock()
		s.pending -= n
		s.mu.Unlock()
		s.space.Broadcast()
	}
}

// pendingBytes is what a range item holds of the host until the device
// has it: its points' bytes in memory (0 for a whole section).
func (set subgroupSet) pendingBytes() int64 {
	if set.ranged == nil {
		return 0
	}
	size := int64(unsafe.Sizeof(bls.G1Affine{}))
	if set.g1 == nil {
		size = int64(unsafe.Sizeof(bls.G2Affine{}))
	}
	return int64(set.to-set.from) * size
}

// section returns how the decoder hands over query section set (its
// points not yet decoded): a function for each decoded range [from, to),
// when the checker takes ranges; else nil, and the decoder adds the whole
// section once decoded.
func (s *sectionChecks) section(set subgroupSet) func(from, to int) {
	if s.rc == nil {
		return nil
	}
	r := &rangedSection{}
	s.mu.Lock()
	s.ranged = append(s.ranged, r)
	s.mu.Unlock()
	return func(from, to int) {
		item := set
		item.ranged, item.from, item.to = r, from, to
		s.add(item)
	}
}

func (s *sectionChecks) stopped() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

// abandon stops the check after the checker call in progress (a device
// call cannot be interrupted); safe from any goroutine, more than once.
func (s *sectionChecks) abandon() {
	s.once.Do(func() { close(s.stop) })
	s.space.Broadcast()
}

// vouch stops checking, the contents being known valid (a record hit),
// but goes on handing a device checker its ranges, which it keeps: the
// key's points are uploaded once, beside the decoding, and leave the host
// as they go up. Another checker stops.
func (s *sectionChecks) vouch() {
	if s.rc == nil {
		s.abandon()
		return
	}
	s.fill.Store(true)
}

// startFills starts handing a device checker c the key's ranges to keep,
// unchecked (a trusted file, or one its record vouches for before the
// decode); nil when c takes no ranges.
func startFills(c SubgroupChecker, total int64, report progress.Func) *sectionChecks {
	if _, ok := c.(RangeChecker); !ok {
		return nil
	}
	return begin(c, total, report, nil, true)
}

// finish is called once, when decoding ended with decodeErr: it waits for
// the goroutine and returns decodeErr if set (the check is then abandoned:
// a format or curve error wins over a subgroup failure, as when the two
// ran one after the other), else the check's result. The ranged sections'
// checks end complete only when the whole key passed.
func (s *sectionChecks) finish(decodeErr error) error {
	if decodeErr != nil {
		s.abandon()
	}
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cond.Broadcast()
	<-s.done
	err := decodeErr
	if err == nil {
		err = s.err
	}
	for _, r := range s.ranged {
		if r.check != nil {
			r.check.Done(err == nil)
		}
	}
	return err
}
