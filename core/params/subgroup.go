package params

import (
	"fmt"
	"runtime"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk/cuzk/core/internal/par"
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
}

func (s subgroupSet) len() int { return len(s.g1) + len(s.g2) }

func subgroupSets(pk *ProvingKey) []subgroupSet {
	vk := &pk.VerifyingKey
	return []subgroupSet{
		{name: "alpha_g1", g1: []bls.G1Affine{vk.Alpha1}, vk: true},
		{name: "beta_g1", g1: []bls.G1Affine{vk.Beta1}, vk: true},
		{name: "delta_g1", g1: []bls.G1Affine{vk.Delta1}, vk: true},
		{name: "beta_g2", g2: []bls.G2Affine{vk.Beta2}, vk: true},
		{name: "gamma_g2", g2: []bls.G2Affine{vk.Gamma2}, vk: true},
		{name: "delta_g2", g2: []bls.G2Affine{vk.Delta2}, vk: true},
		{name: "ic", g1: vk.IC, vk: true},
		{name: "h", g1: pk.H},
		{name: "l", g1: pk.L},
		{name: "a", g1: pk.A},
		{name: "b_g1", g1: pk.BG1},
		{name: "b_g2", g2: pk.BG2},
	}
}

// CheckSubgroups runs c over every point of pk in chunks, reporting
// progress (stage "subgroup", in points) after each. The error names the
// first point found outside the subgroup, wrapping ErrNotInGroup.
func CheckSubgroups(pk *ProvingKey, c SubgroupChecker, progress func(stage string, done, total int64)) error {
	sets := subgroupSets(pk)
	var total, done int64
	for _, s := range sets {
		total += int64(s.len())
	}
	_, onCPU := c.(CPUChecker)
	for _, s := range sets {
		// A device checker gets each query whole: it uploads the very
		// slices the MSMs later use, once, and they stay resident for
		// them (a chunk would be a second, separate upload). The
		// verifying key's few points are checked here, on the CPU.
		chunk, checker := checkChunk, c
		if !onCPU {
			chunk = max(1, s.len())
			if s.vk {
				checker = CPUChecker{}
			}
		}
		for from := 0; from < s.len(); from += chunk {
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
			done += int64(to - from)
			if progress != nil {
				progress(StageSubgroup, done, total)
			}
		}
	}
	return nil
}
