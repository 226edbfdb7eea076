package groth16

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"runtime"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/backend/cpu"
	"github.com/cuzk/cuzk/core/msm"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/progress"
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
	// Backend computes the NTTs and MSMs; nil means the CPU backend.
	Backend backend.Backend
	// Plan, when set, says where each stage runs and replaces Backend; nil
	// runs everything the backend offers on its device (the prep, B_G2),
	// or everything on the CPU backend.
	Plan *Plan
	// Progress, when set, is told as each stage of the proof begins and
	// ends: stage StageProve, Step the stage's name, Done the stages
	// ended of Total, in progress.Stages.
	Progress progress.Func
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

// StageProve is the stage a proof reports progress under.
const StageProve = "prove"

// Stage is one timed step of a proof.
type Stage struct {
	Name     string        `json:"name"`
	Duration time.Duration `json:"-"` // duration_seconds
	// MSM scalar classes, for the MSM stages.
	MSM msm.Stats `json:"msm,omitzero"`
}

// MarshalJSON writes the duration in seconds.
func (s Stage) MarshalJSON() ([]byte, error) {
	type fields Stage // without this method
	return json.Marshal(struct {
		fields
		Duration float64 `json:"duration_seconds"`
	}{fields(s), s.Duration.Seconds()})
}

// Report describes how a proof was computed.
type Report struct {
	Stages []Stage
	Total  time.Duration
	// ABCReady is when a, b, c were ready, from the start of the device
	// region (negative: before it; their prefetch is asked for at the
	// later of the two); nil without a prefetch or a region.
	ABCReady *time.Duration

	// progress is told of each stage begun and ended; steps is the
	// stages of the whole proof.
	progress progress.Func
	steps    int64
}

// tell reports the stage named step, begun or ended.
func (r *Report) tell(step string) {
	r.progress.Report(progress.Event{Stage: StageProve, Step: step, Done: int64(len(r.Stages)),
		Total: r.steps, Unit: progress.Stages})
}

// add records stages that ended.
func (r *Report) add(st ...Stage) {
	r.Stages = append(r.Stages, st...)
	r.tell(st[len(st)-1].Name)
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

// timed runs fn as the stage name and records its time.
func (r *Report) timed(name string, fn func() (msm.Stats, error)) error {
	r.tell(name)
	start := time.Now()
	st, err := fn()
	r.add(Stage{Name: name, Duration: time.Since(start), MSM: st})
	return err
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
	// Ready, when set, blocks until A, B and C hold their values and says
	// whether they ever will: the engine hands a partition to its device
	// once aux is in place and copies a, b, c meanwhile, so that the copy
	// overlaps the query MSMs, which need only aux. The device stage calls
	// it before anything reads A, B or C.
	Ready func() error
}

// ready waits for asg's A, B, C (see Assignment.Ready).
func (asg *Assignment) ready() error {
	if asg.Ready == nil {
		return nil
	}
	return asg.Ready()
}

// Prove evaluates cs on w, refuses an unsatisfied witness (naming the first
// failing constraint) and proves.
func Prove(pk *params.ProvingKey, cs *r1cs.R1CS, w *r1cs.Witness, opt Options) (*params.Proof, *Report, error) {
	start := time.Now()
	opt.Progress = progress.Serialised(opt.Progress)
	rep := &Report{progress: opt.Progress, steps: proofStages + 1}
	rep.tell(StageMatVec)
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
	ev.Check = true // each row checked as it is evaluated
	if err := cs.Eval(w, asg.A, asg.B, asg.C, ev); err != nil {
		return nil, nil, err
	}
	matvec := time.Since(start)
	rep.add(Stage{Name: StageMatVec, Duration: matvec})
	proof, err := proveAssignment(pk, asg, opt, rep)
	if err != nil {
		return nil, nil, err
	}
	rep.Total += matvec
	return proof, rep, nil
}

// CheckKey reports whether pk's query sizes fit cs (the same circuit
// shape; it cannot tell two circuits of one shape apart).
func CheckKey(pk *params.ProvingKey, cs *r1cs.R1CS) error {
	return CheckLayout(layoutOf(pk), cs)
}

// CheckLayout is CheckKey for a parameter file's layout (params.
// DecodeLayout): its section counts, read without decoding a point.
func CheckLayout(l params.Layout, cs *r1cs.R1CS) error {
	if err := checkShape(l, cs.NumInputs, cs.NumAux, cs.DomainSize(), &cs.Density); err != nil {
		return fmt.Errorf("groth16: %w", err)
	}
	return nil
}

func layoutOf(pk *params.ProvingKey) params.Layout {
	return params.Layout{IC: len(pk.IC), H: len(pk.H), L: len(pk.L), A: len(pk.A), BG1: len(pk.BG1), BG2: len(pk.BG2)}
}

// checkKeyShape checks that pk's query sizes fit a circuit with these
// sizes and densities.
func checkKeyShape(pk *params.ProvingKey, nInputs, nAux, n int, d *r1cs.Density) error {
	return checkShape(layoutOf(pk), nInputs, nAux, n, d)
}

func checkShape(pk params.Layout, nInputs, nAux, n int, d *r1cs.Density) error {
	nB := d.BInput.Count() + d.BAux.Count()
	checks := []struct {
		what      string
		got, want int
	}{
		{"ic", pk.IC, nInputs},
		{"l", pk.L, nAux},
		{"h", pk.H, n - 1},
		{"a", pk.A, nInputs + d.AAux.Count()},
		{"b_g1", pk.BG1, nB},
		{"b_g2", pk.BG2, nB},
	}
	for _, c := range checks {
		if c.got != c.want {
			return fmt.Errorf("parameters do not match the circuit: %s has %d points, circuit needs %d", c.what, c.got, c.want)
		}
	}
	return nil
}

// Validate checks an assignment against pk before proving.
func Validate(pk *params.ProvingKey, asg *Assignment) error {
	n := len(asg.A)
	if n < 2 || bits.OnesCount(uint(n)) != 1 || len(asg.B) != n || len(asg.C) != n {
		return fmt.Errorf("groth16: a, b, c must have one power-of-two length ≥ 2 (got %d/%d/%d)", len(asg.A), len(asg.B), len(asg.C))
	}
	if n != len(pk.H)+1 {
		return fmt.Errorf("groth16: a, b, c have %d elements, the parameters' domain has %d", n, len(pk.H)+1)
	}
	return CheckWitness(pk, asg.Inputs, asg.Aux, asg.Density)
}

// CheckWitness checks a witness and its density bitmaps against pk: sizes,
// popcounts against the query sizes, and the constant ONE.
func CheckWitness(pk *params.ProvingKey, inputs, aux []fr.Element, d *r1cs.Density) error {
	if d == nil || d.AAux.Len != len(aux) || d.BAux.Len != len(aux) || d.BInput.Len != len(inputs) {
		return errors.New("groth16: density bitmaps do not match the witness sizes")
	}
	if len(inputs) == 0 || !inputs[0].IsOne() {
		return errors.New("groth16: input 0 (the constant ONE) must be 1")
	}
	if err := checkKeyShape(pk, len(inputs), len(aux), len(pk.H)+1, d); err != nil {
		return fmt.Errorf("groth16: %w", err)
	}
	return nil
}

// Randomness returns the proof's r and s: opt's fixed values, or fresh
// ones from crypto/rand.
func Randomness(opt *Options) (r, s fr.Element, err error) {
	if err = randomOr(&r, opt.R); err == nil {
		err = randomOr(&s, opt.S)
	}
	return
}

// Assemble combines the MSM results into the proof.
func Assemble(vk *params.VerifyingKey, r, s *fr.Element, m *MSMResults) *params.Proof {
	return assemble(vk, r, s, &m.H, &m.L, &m.A, &m.B1, &m.B2)
}

// plan is opt's plan: opt.Plan, or everything the backend offers on its
// device (the CPU backend: everything there, B_G2 as the engine runs it on
// the CPU, after the region).
func (o *Options) plan() *Plan {
	if o.Plan != nil {
		return o.Plan
	}
	cpuBE := &cpu.Backend{NbTasks: o.NbTasks}
	if o.Backend == nil {
		return NewPlan(Plan{Device: cpuBE, G2Threads: o.NbTasks})
	}
	return NewPlan(Plan{Device: o.Backend, CPU: cpuBE, G2Threads: o.NbTasks, DevicePrep: true, G2OnGPU: true})
}

// proofStages is the stages ProveAssignment reports: the NTTs and the five
// MSMs.
const proofStages = 6

// ProveAssignment runs the proving stages on an assignment, one after the
// other, as opt's plan says (Run, with no lock and no throttle). It
// overwrites asg.A, B and C.
func ProveAssignment(pk *params.ProvingKey, asg *Assignment, opt Options) (*params.Proof, *Report, error) {
	rep := &Report{progress: progress.Serialised(opt.Progress), steps: proofStages}
	proof, err := proveAssignment(pk, asg, opt, rep)
	if err != nil {
		return nil, nil, err
	}
	return proof, rep, nil
}

// proveAssignment proves into rep, after the stages rep already holds
// (Prove's mat-vec): rep.Total is the time of the stages added here, the
// last of them "other" (validation, prep and assembly).
func proveAssignment(pk *params.ProvingKey, asg *Assignment, opt Options, rep *Report) (*params.Proof, error) {
	start, first := time.Now(), len(rep.Stages)
	if err := Validate(pk, asg); err != nil {
		return nil, err
	}
	r, s, err := Randomness(&opt)
	if err != nil {
		return nil, err
	}
	m, err := opt.plan().Run(pk, asg, RunOptions{}, rep)
	if err != nil {
		return nil, err
	}
	proof := Assemble(&pk.VerifyingKey, &r, &s, m)
	rep.Total = time.Since(start)
	var done time.Duration
	for _, st := range rep.Stages[first:] {
		done += st.Duration
	}
	rep.Stages = append(rep.Stages, Stage{Name: StageOther, Duration: rep.Total - done})
	return proof, nil
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
