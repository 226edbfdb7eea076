package msm

import (
	"fmt"
	"runtime"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/internal/par"
)

// Stats counts the scalars by class.
type Stats struct {
	Zeros  int `json:"zeros"`
	Ones   int `json:"ones"`
	Others int `json:"others"`
}

// jac is what the split needs of a Jacobian point type (G1Jac, G2Jac).
type jac[A any, J any] interface {
	*J
	AddMixed(*A) *J
	AddAssign(*J) *J
	MultiExp([]A, []fr.Element, ecc.MultiExpConfig) (*J, error)
}

// G1 returns Σ scalars[i]·points[i] in G1.
func G1(points []bls.G1Affine, scalars []fr.Element, nbTasks int) (bls.G1Jac, Stats, error) {
	return split[bls.G1Affine, bls.G1Jac](points, scalars, nbTasks)
}

// G2 returns Σ scalars[i]·points[i] in G2.
func G2(points []bls.G2Affine, scalars []fr.Element, nbTasks int) (bls.G2Jac, Stats, error) {
	return split[bls.G2Affine, bls.G2Jac](points, scalars, nbTasks)
}

// denseShare is the share of non-0/1 scalars above which the split does
// not pay: Pippenger then runs on the whole input (it skips zero scalars by
// itself), which saves compacting copies of most points (96 or 192 bytes
// each) — the H query's scalars, for one, are uniformly random.
const denseShare = 0.5

func split[A any, J any, PJ jac[A, J]](points []A, scalars []fr.Element, nbTasks int) (J, Stats, error) {
	var res J
	if len(points) != len(scalars) {
		return res, Stats{}, fmt.Errorf("msm: %d points, %d scalars", len(points), len(scalars))
	}
	if nbTasks <= 0 {
		nbTasks = runtime.GOMAXPROCS(0)
	}
	n := len(points)
	nbChunks := min(nbTasks, max(n/1024, 1))
	parts := classify(scalars, nbChunks)
	st := total(parts)
	cfg := ecc.MultiExpConfig{NbTasks: nbTasks}
	if st.Others == 0 && st.Ones == 0 {
		return res, st, nil
	}
	if float64(st.Others) >= denseShare*float64(n) {
		if _, err := PJ(&res).MultiExp(points, scalars, cfg); err != nil {
			return res, st, fmt.Errorf("msm: %w", err)
		}
		return res, st, nil
	}

	// Sum the points with scalar 1; compact the others for Pippenger.
	ps := make([]A, st.Others)
	ss := make([]fr.Element, st.Others)
	offsets := make([]int, nbChunks)
	for t := 1; t < nbChunks; t++ {
		offsets[t] = offsets[t-1] + parts[t-1].Others
	}
	sums := make([]J, nbChunks)
	par.Ranges(nbChunks, n, func(t, from, to int) {
		k := offsets[t]
		for i := from; i < to; i++ {
			switch {
			case scalars[i].IsZero():
			case scalars[i].IsOne():
				PJ(&sums[t]).AddMixed(&points[i])
			default:
				ps[k], ss[k] = points[i], scalars[i]
				k++
			}
		}
	})
	for t := range sums {
		PJ(&res).AddAssign(&sums[t])
	}
	if st.Others == 0 {
		return res, st, nil
	}
	var rest J
	if _, err := PJ(&rest).MultiExp(ps, ss, cfg); err != nil {
		return res, st, fmt.Errorf("msm: %w", err)
	}
	PJ(&res).AddAssign(&rest)
	return res, st, nil
}

// classify counts the classes in nbChunks contiguous ranges.
func classify(scalars []fr.Element, nbChunks int) []Stats {
	parts := make([]Stats, nbChunks)
	par.Ranges(nbChunks, len(scalars), func(t, from, to int) {
		for i := from; i < to; i++ {
			switch {
			case scalars[i].IsZero():
				parts[t].Zeros++
			case scalars[i].IsOne():
				parts[t].Ones++
			default:
				parts[t].Others++
			}
		}
	})
	return parts
}

func total(parts []Stats) Stats {
	var st Stats
	for _, p := range parts {
		st.Zeros += p.Zeros
		st.Ones += p.Ones
		st.Others += p.Others
	}
	return st
}
