package msm

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Stats counts the scalars by class.
type Stats struct {
	Zeros, Ones, Others int
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
	type part struct {
		sum    J
		st     Stats
		others []int
	}
	parts := make([]part, nbChunks)
	var wg sync.WaitGroup
	for t := range parts {
		wg.Add(1)
		go func(p *part, from, to int) {
			defer wg.Done()
			for i := from; i < to; i++ {
				switch {
				case scalars[i].IsZero():
					p.st.Zeros++
				case scalars[i].IsOne():
					p.st.Ones++
					PJ(&p.sum).AddMixed(&points[i])
				default:
					p.others = append(p.others, i)
				}
			}
		}(&parts[t], t*n/nbChunks, (t+1)*n/nbChunks)
	}
	wg.Wait()
	var st Stats
	for t := range parts {
		PJ(&res).AddAssign(&parts[t].sum)
		st.Zeros += parts[t].st.Zeros
		st.Ones += parts[t].st.Ones
		st.Others += len(parts[t].others)
	}
	if st.Others == 0 {
		return res, st, nil
	}
	ps := make([]A, 0, st.Others)
	ss := make([]fr.Element, 0, st.Others)
	for t := range parts {
		for _, i := range parts[t].others {
			ps = append(ps, points[i])
			ss = append(ss, scalars[i])
		}
	}
	var big J
	if _, err := PJ(&big).MultiExp(ps, ss, ecc.MultiExpConfig{NbTasks: nbTasks}); err != nil {
		return res, st, fmt.Errorf("msm: %w", err)
	}
	PJ(&res).AddAssign(&big)
	return res, st, nil
}
