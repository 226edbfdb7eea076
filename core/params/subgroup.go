package params

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

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
	return firstFailing(len(points), c.NbTasks, func(i int) bool { return points[i].IsInSubGroup() }), nil
}

// CheckSubgroupG2 implements SubgroupChecker.
func (c CPUChecker) CheckSubgroupG2(points []bls.G2Affine) (int, error) {
	return firstFailing(len(points), c.NbTasks, func(i int) bool { return points[i].IsInSubGroup() }), nil
}

// firstFailing returns the lowest i in [0, n) with !ok(i), or -1.
func firstFailing(n, nbTasks int, ok func(i int) bool) int {
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
		}
	})
	for _, b := range bad {
		if b >= 0 {
			return b
		}
	}
	return -1
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
		if err := sc.check(s, nil); err != nil {
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
func (sc *setChecker) check(s subgroupSet, stopped func() bool) error {
	_, onCPU := sc.c.(CPUChecker)
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
		if s.g1 != nil {
			bad, err = checker.CheckSubgroupG1(s.g1[from:to])
		} else {
			bad, err = checker.CheckSubgroupG2(s.g2[from:to])
		}
		if err != nil {
			return fmt.Errorf("params: %s: subgroup check: %w", s.name, err)
		}
		if bad >= 0 {
			if s.len() == 1 {
				return fmt.Errorf("params: %s: %w", s.name, ErrNotInGroup)
			}
			return fmt.Errorf("params: %s[%d]: %w", s.name, from+bad, ErrNotInGroup)
		}
		done := sc.done.Add(int64(to - from))
		sc.progress.Report(progress.Event{Stage: StageSubgroup, Done: done, Total: sc.total, Unit: progress.Points})
	}
	return nil
}

// sectionChecks checks a key's sections in the order the decoder hands
// them over, while the decoder goes on with the next ones: a first load
// then costs about the decode plus the check of the last section, not the
// decode plus the whole check. A device checker gets two goroutines, so
// that one section's upload runs beside the other's kernels (on the CPU
// one goroutine: the checker is parallel within a section).
type sectionChecks struct {
	sets chan subgroupSet // holds every section: the decoder never waits
	stop chan struct{}    // closed to abandon the check
	once sync.Once
	done chan struct{} // closed when the goroutine has returned
	err  error         // valid once done is closed
}

// startChecks starts checking with c the sections given to add, once
// ready is closed (nil: at once); total is the number of points of the
// whole key, for progress.
func startChecks(c SubgroupChecker, total int64, report progress.Func, ready <-chan struct{}) *sectionChecks {
	s := &sectionChecks{sets: make(chan subgroupSet, nbSets), stop: make(chan struct{}), done: make(chan struct{})}
	sc := &setChecker{c: c, progress: report, total: total}
	workers := 2
	if _, onCPU := c.(CPUChecker); onCPU {
		workers = 1
	}
	go func() {
		defer close(s.done)
		if ready != nil {
			select {
			case <-ready:
			case <-s.stop:
			}
		}
		// After a failure only the sections before it in the file are
		// checked, and of two failures the one earlier in the file wins,
		// whatever its kind: the error names the first point outside the
		// subgroup in file order, or a device error that came before it
		// (sections are handed over in file order, two checked at once).
		var mu sync.Mutex
		failed := nbSets
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for set := range s.sets {
					mu.Lock()
					skip := set.pos > failed
					mu.Unlock()
					if skip {
						continue
					}
					if err := sc.check(set, s.stopped); err != nil {
						mu.Lock()
						if set.pos < failed {
							s.err, failed = err, set.pos
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

// add hands over a decoded section.
func (s *sectionChecks) add(set subgroupSet) { s.sets <- set }

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
func (s *sectionChecks) abandon() { s.once.Do(func() { close(s.stop) }) }

// finish is called once, when decoding ended with decodeErr: it waits for
// the goroutine and returns decodeErr if set (the check is then abandoned:
// a format or curve error wins over a subgroup failure, as when the two
// ran one after the other), else the check's result.
func (s *sectionChecks) finish(decodeErr error) error {
	if decodeErr != nil {
		s.abandon()
	}
	close(s.sets)
	<-s.done
	if decodeErr != nil {
		return decodeErr
	}
	return s.err
}
