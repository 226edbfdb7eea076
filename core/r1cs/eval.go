package r1cs

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// DefaultCheckRows is how many rows a mat-vec goroutine evaluates between
// calls to EvalOptions.Pause. At ~3 terms a row this is ~10 µs of work, so a
// raised throttle is noticed quickly and the check costs nothing measurable.
const DefaultCheckRows = 4096

// EvalOptions control the sparse mat-vec.
type EvalOptions struct {
	// NbTasks bounds the goroutines; 0 means GOMAXPROCS.
	NbTasks int
	// CheckRows is the block of rows between Pause calls (default
	// DefaultCheckRows).
	CheckRows int
	// Pause, when set, is called by each goroutine between blocks of rows;
	// the engine uses it to yield while the memory-bandwidth throttle is
	// raised, and to stop a cancelled job: an error stops the evaluation
	// and is returned by Eval.
	Pause func() error
	// Check verifies a_k·b_k = c_k for every constraint as its block is
	// evaluated, while the block is still in cache (CheckEvaluation's
	// check without its second pass over a, b and c), and makes Eval
	// return the first failing constraint's error, as CheckEvaluation
	// would.
	Check bool
}

// Eval computes a = A·z, b = B·z, c = C·z into the caller's buffers,
// including the appended input rows (a = x_i, b = c = 0), and zeroes the
// buffers from Rows() to their end (the padding up to the domain size).
func (r *R1CS) Eval(w *Witness, a, b, c []fr.Element, opt EvalOptions) error {
	if err := r.CheckWitness(w); err != nil {
		return err
	}
	rows := r.Rows()
	if len(a) < rows || len(b) != len(a) || len(c) != len(a) {
		return fmt.Errorf("r1cs: eval buffers of %d/%d/%d elements, need %d each", len(a), len(b), len(c), rows)
	}
	block := opt.CheckRows
	if block <= 0 {
		block = DefaultCheckRows
	}
	bad, err := inBlocks(len(a), block, opt.NbTasks, opt.Pause, func(from, to int) int {
		r.evalRows(w, a, b, c, from, to)
		if opt.Check {
			return r.firstUnsatisfied(a, b, c, from, to)
		}
		return -1
	})
	if err != nil {
		return err
	}
	return unsatisfied(bad)
}

// inBlocks runs fn over [0, n) in blocks of block indexes taken in order by
// up to tasks goroutines (0: GOMAXPROCS), calling pause (when set) before
// each block; a pause error stops every goroutine and is returned. fn
// returns an index it found in its block, or −1; inBlocks returns the
// lowest one found, or −1. Once an index is found, blocks that start past
// it are skipped (none of them can hold a lower one).
func inBlocks(n, block, tasks int, pause func() error, fn func(from, to int) int) (int, error) {
	if tasks <= 0 {
		tasks = runtime.GOMAXPROCS(0)
	}
	nBlocks := (n + block - 1) / block
	var next atomic.Int64
	var found atomic.Int64
	found.Store(math.MaxInt64)
	var stop atomic.Pointer[error]
	var wg sync.WaitGroup
	for t := 0; t < min(tasks, nBlocks); t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				blk := int(next.Add(1) - 1)
				if blk >= nBlocks {
					return
				}
				if int64(blk*block) >= found.Load() {
					continue
				}
				if pause != nil {
					if err := pause(); err != nil {
						stop.CompareAndSwap(nil, &err)
						next.Store(int64(nBlocks)) // the other goroutines stop too
						return
					}
				}
				if i := fn(blk*block, min((blk+1)*block, n)); i >= 0 {
					for cur := found.Load(); int64(i) < cur && !found.CompareAndSwap(cur, int64(i)); cur = found.Load() {
					}
				}
			}
		}()
	}
	wg.Wait()
	if err := stop.Load(); err != nil {
		return -1, *err
	}
	if f := found.Load(); f != math.MaxInt64 {
		// the blocks skipped after the find paused no one: a stop asked
		// for meanwhile (a cancelled job) still comes first
		if pause != nil {
			if err := pause(); err != nil {
				return -1, err
			}
		}
		return int(f), nil
	}
	return -1, nil
}

func (r *R1CS) evalRows(w *Witness, a, b, c []fr.Element, from, to int) {
	nc := r.NumConstraints
	for k := from; k < to; k++ {
		switch {
		case k < nc:
			a[k] = r.dot(&r.A, k, w)
			b[k] = r.dot(&r.B, k, w)
			c[k] = r.dot(&r.C, k, w)
		case k < nc+r.NumInputs:
			a[k] = w.Inputs[k-nc]
			b[k].SetZero()
			c[k].SetZero()
		default:
			a[k].SetZero()
			b[k].SetZero()
			c[k].SetZero()
		}
	}
}

// dot returns <M_k, z>.
func (r *R1CS) dot(m *Matrix, k int, w *Witness) fr.Element {
	var acc, t fr.Element
	ni := uint32(r.NumInputs)
	for j := m.RowPtr[k]; j < m.RowPtr[k+1]; j++ {
		col := m.Col[j]
		var v *fr.Element
		if col < ni {
			v = &w.Inputs[col]
		} else {
			v = &w.Aux[col-ni]
		}
		switch m.Val[j] {
		case CoeffOne:
			acc.Add(&acc, v)
		case CoeffMinusOne:
			acc.Sub(&acc, v)
		default:
			t.Mul(v, &r.Coeffs[m.Val[j]])
			acc.Add(&acc, &t)
		}
	}
	return acc
}

// CheckEvaluation reports the first constraint k with a_k·b_k ≠ c_k. It
// runs on GOMAXPROCS goroutines; Eval's Check option does the same check
// without a second pass over a, b and c.
func (r *R1CS) CheckEvaluation(a, b, c []fr.Element) error {
	nc := r.NumConstraints
	if len(a) < nc || len(b) < nc || len(c) < nc {
		return fmt.Errorf("r1cs: evaluation of %d/%d/%d elements, need %d each", len(a), len(b), len(c), nc)
	}
	bad, _ := inBlocks(nc, DefaultCheckRows, 0, nil, func(from, to int) int {
		return r.firstUnsatisfied(a, b, c, from, to)
	})
	return unsatisfied(bad)
}

// firstUnsatisfied returns the first constraint in [from, to) with
// a_k·b_k ≠ c_k (rows past the constraints are not checked), or −1.
func (r *R1CS) firstUnsatisfied(a, b, c []fr.Element, from, to int) int {
	var t fr.Element
	for k := from; k < min(to, r.NumConstraints); k++ {
		if !t.Mul(&a[k], &b[k]).Equal(&c[k]) {
			return k
		}
	}
	return -1
}

// unsatisfied is the error for the first failing constraint k (none: k < 0).
func unsatisfied(k int) error {
	if k < 0 {
		return nil
	}
	return fmt.Errorf("r1cs: constraint %d: %w", k, ErrUnsatisfied)
}

// IsSatisfied evaluates the system on w and reports the first failing
// constraint, by index.
func (r *R1CS) IsSatisfied(w *Witness) error {
	if err := r.CheckWitness(w); err != nil {
		return err
	}
	bad, _ := inBlocks(r.NumConstraints, DefaultCheckRows, 0, nil, func(from, to int) int {
		var t fr.Element
		for k := from; k < to; k++ {
			a, b, c := r.dot(&r.A, k, w), r.dot(&r.B, k, w), r.dot(&r.C, k, w)
			if !t.Mul(&a, &b).Equal(&c) {
				return k
			}
		}
		return -1
	})
	return unsatisfied(bad)
}
