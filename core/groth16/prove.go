package groth16

import (
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"runtime"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/msm"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
)

// Options control proving.
type Options struct {
	// R and S fix the proof's randomness (tests, reproducibility); nil
	// draws each from crypto/rand.
	R, S *fr.Element
	// NbTasks bounds the goroutines of each stage; 0 means GOMAXPROCS.
	NbTasks int
	// Eval is passed to the mat-vec.
	Eval r1cs.EvalOptions
}

func (o *Options) tasks() int {
	if o.NbTasks > 0 {
		return o.NbTasks
	}
	return runtime.GOMAXPROCS(0)
}

// Stage names, in the order Prove runs them.
const (
	StageMatVec = "mat-vec"
	StageFFT    = "ntt (h)"
	StageMSMH   = "msm h"
	StageMSML   = "msm l"
	StageMSMA   = "msm a"
	StageMSMB1  = "msm b_g1"
	StageMSMB2  = "msm b_g2"
	StageOther  = "other"
)

// Stage is one timed step of a proof.
type Stage struct {
	Name     string
	Duration time.Duration
	// MSM scalar classes, for the MSM stages.
	MSM msm.Stats
}

// Report describes how a proof was computed.
type Report struct {
	Stages []Stage
	Total  time.Duration
}

// Duration returns the time of the named stage.
func (r *Report) Duration(name string) time.Duration {
	for _, s := range r.Stages {
		if s.Name == name {
			return s.Duration
		}
	}
	return 0
}

func (r *Report) add(name string, start time.Time, st msm.Stats) time.Time {
	now := time.Now()
	r.Stages = append(r.Stages, Stage{Name: name, Duration: now.Sub(start), MSM: st})
	return now
}

// Assignment is the input of the proving stages after synthesis: the
// evaluations over the domain and the witness. It is the Go form of
// supraseal-c2's Assignment.
type Assignment struct {
	// A, B, C hold a = A·z, b = B·z, c = C·z for every row, zero-padded to
	// the domain size N. ProveAssignment uses them as scratch space.
	A, B, C []fr.Element
	Inputs  []fr.Element // Inputs[0] = 1
	Aux     []fr.Element
	Density *r1cs.Density
}

// Prove evaluates cs on w, refuses an unsatisfied witness (naming the first
// failing constraint) and proves.
func Prove(pk *params.ProvingKey, cs *r1cs.R1CS, w *r1cs.Witness, opt Options) (*params.Proof, *Report, error) {
	start := time.Now()
	if err := cs.CheckWitness(w); err != nil {
		return nil, nil, err
	}
	n := len(pk.H) + 1
	if n < cs.Rows() {
		return nil, nil, fmt.Errorf("groth16: parameters are for a domain of %d rows, circuit has %d", n, cs.Rows())
	}
	asg := &Assignment{
		A: make([]fr.Element, n), B: make([]fr.Element, n), C: make([]fr.Element, n),
		Inputs: w.Inputs, Aux: w.Aux, Density: &cs.Density,
	}
	ev := opt.Eval
	if ev.NbTasks == 0 {
		ev.NbTasks = opt.tasks()
	}
	if err := cs.Eval(w, asg.A, asg.B, asg.C, ev); err != nil {
		return nil, nil, err
	}
	if err := cs.CheckEvaluation(asg.A, asg.B, asg.C); err != nil {
		return nil, nil, err
	}
	matvec := time.Since(start)
	proof, rep, err := ProveAssignment(pk, asg, opt)
	if err != nil {
		return nil, nil, err
	}
	rep.Stages = append([]Stage{{Name: StageMatVec, Duration: matvec}}, rep.Stages...)
	rep.Total += matvec
	return proof, rep, nil
}

// CheckKey reports whether pk's query sizes fit cs (the same circuit
// shape; it cannot tell two circuits of one shape apart).
func CheckKey(pk *params.ProvingKey, cs *r1cs.R1CS) error {
	if err := checkKeyShape(pk, cs.NumInputs, cs.NumAux, cs.DomainSize(), &cs.Density); err != nil {
		return fmt.Errorf("groth16: %w", err)
	}
	return nil
}

// checkKeyShape checks that pk's query sizes fit a circuit with these
// sizes and densities.
func checkKeyShape(pk *params.ProvingKey, nInputs, nAux, n int, d *r1cs.Density) error {
	nB := d.BInput.Count() + d.BAux.Count()
	checks := []struct {
		what      string
		got, want int
	}{
		{"ic", len(pk.IC), nInputs},
		{"l", len(pk.L), nAux},
		{"h", len(pk.H), n - 1},
		{"a", len(pk.A), nInputs + d.AAux.Count()},
		{"b_g1", len(pk.BG1), nB},
		{"b_g2", len(pk.BG2), nB},
	}
	for _, c := range checks {
		if c.got != c.want {
			return fmt.Errorf("parameters do not match the circuit: %s has %d points, circuit needs %d", c.what, c.got, c.want)
		}
	}
	return nil
}

// ProveAssignment runs the proving stages on an assignment. It overwrites
// asg.A, asg.B and asg.C.
func ProveAssignment(pk *params.ProvingKey, asg *Assignment, opt Options) (*params.Proof, *Report, error) {
	start := time.Now()
	n := len(asg.A)
	if n < 2 || bits.OnesCount(uint(n)) != 1 || len(asg.B) != n || len(asg.C) != n {
		return nil, nil, fmt.Errorf("groth16: a, b, c must have one power-of-two length ≥ 2 (got %d/%d/%d)", len(asg.A), len(asg.B), len(asg.C))
	}
	d := asg.Density
	if d == nil || d.AAux.Len != len(asg.Aux) || d.BAux.Len != len(asg.Aux) || d.BInput.Len != len(asg.Inputs) {
		return nil, nil, errors.New("groth16: density bitmaps do not match the witness sizes")
	}
	if len(asg.Inputs) == 0 || !asg.Inputs[0].IsOne() {
		return nil, nil, errors.New("groth16: input 0 (the constant ONE) must be 1")
	}
	if err := checkKeyShape(pk, len(asg.Inputs), len(asg.Aux), n, d); err != nil {
		return nil, nil, fmt.Errorf("groth16: %w", err)
	}
	var r, s fr.Element
	if err := randomOr(&r, opt.R); err != nil {
		return nil, nil, err
	}
	if err := randomOr(&s, opt.S); err != nil {
		return nil, nil, err
	}
	nbTasks := opt.tasks()
	rep := &Report{}
	t := start

	h := computeH(newDomain(n), asg.A, asg.B, asg.C, nbTasks)
	t = rep.add(StageFFT, t, msm.Stats{})

	hJ, st, err := msm.G1(pk.H, h, nbTasks)
	if err != nil {
		return nil, nil, err
	}
	t = rep.add(StageMSMH, t, st)
	lJ, st, err := msm.G1(pk.L, asg.Aux, nbTasks)
	if err != nil {
		return nil, nil, err
	}
	t = rep.add(StageMSML, t, st)

	aScalars := gather(asg.Inputs, nil, asg.Aux, &d.AAux)
	aJ, st, err := msm.G1(pk.A, aScalars, nbTasks)
	if err != nil {
		return nil, nil, err
	}
	t = rep.add(StageMSMA, t, st)

	bScalars := gather(asg.Inputs, &d.BInput, asg.Aux, &d.BAux)
	b1J, st, err := msm.G1(pk.BG1, bScalars, nbTasks)
	if err != nil {
		return nil, nil, err
	}
	t = rep.add(StageMSMB1, t, st)
	b2J, st, err := msm.G2(pk.BG2, bScalars, nbTasks)
	if err != nil {
		return nil, nil, err
	}
	t = rep.add(StageMSMB2, t, st)

	proof := assemble(&pk.VerifyingKey, &r, &s, &hJ, &lJ, &aJ, &b1J, &b2J)
	rep.add(StageOther, t, msm.Stats{})
	rep.Total = time.Since(start)
	return proof, rep, nil
}

// gather returns the scalars selected by the density bitmaps: inputs whose
// bit is set in inDensity (all of them when it is nil), then aux whose bit
// is set in auxDensity.
func gather(inputs []fr.Element, inDensity *r1cs.Bitmap, aux []fr.Element, auxDensity *r1cs.Bitmap) []fr.Element {
	out := make([]fr.Element, 0, len(inputs)+auxDensity.Count())
	for i := range inputs {
		if inDensity == nil || inDensity.Get(i) {
			out = append(out, inputs[i])
		}
	}
	for j := range aux {
		if auxDensity.Get(j) {
			out = append(out, aux[j])
		}
	}
	return out
}

func randomOr(dst, fixed *fr.Element) error {
	if fixed != nil {
		dst.Set(fixed)
		return nil
	}
	if _, err := dst.SetRandom(); err != nil {
		return fmt.Errorf("groth16: randomness: %w", err)
	}
	return nil
}

// assemble combines the MSM results into the proof, as bellperson does:
// A = α + a + r·δ₁, B = β₂ + b₂ + s·δ₂, C = h + l + s·A + r·B₁ − r·s·δ₁ with
// B₁ = β₁ + b₁ + s·δ₁.
func assemble(vk *params.VerifyingKey, r, s *fr.Element, h, l, a, b1 *bls.G1Jac, b2 *bls.G2Jac) *params.Proof {
	var rs fr.Element
	rs.Mul(r, s)
	rB, sB, rsB := r.BigInt(new(big.Int)), s.BigInt(new(big.Int)), rs.BigInt(new(big.Int))
	mulG1 := func(p *bls.G1Affine, k *big.Int) *bls.G1Jac {
		var j bls.G1Jac
		j.FromAffine(p)
		return j.ScalarMultiplication(&j, k)
	}

	var A bls.G1Jac
	A.FromAffine(&vk.Alpha1)
	A.AddAssign(a).AddAssign(mulG1(&vk.Delta1, rB))

	var B bls.G2Jac
	B.FromAffine(&vk.Delta2)
	B.ScalarMultiplication(&B, sB)
	B.AddAssign(b2).AddMixed(&vk.Beta2)

	var B1 bls.G1Jac
	B1.FromAffine(&vk.Beta1)
	B1.AddAssign(b1).AddAssign(mulG1(&vk.Delta1, sB))

	var C, t bls.G1Jac
	C.Set(h).AddAssign(l)
	t.ScalarMultiplication(&A, sB)
	C.AddAssign(&t)
	t.ScalarMultiplication(&B1, rB)
	C.AddAssign(&t)
	C.SubAssign(mulG1(&vk.Delta1, rsB))

	proof := &params.Proof{}
	proof.A.FromJacobian(&A)
	proof.B.FromJacobian(&B)
	proof.C.FromJacobian(&C)
	return proof
}
