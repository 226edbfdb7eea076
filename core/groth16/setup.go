package groth16

import (
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"sync/atomic"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/ntt"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/progress"
	"github.com/cuzk/cuzk/core/r1cs"
)

// toxic is the secret randomness of a setup.
type toxic struct {
	tau, alpha, beta, gamma, delta fr.Element
}

// derive returns a non-zero field element from the seed and a label.
func derive(seed uint64, label string) fr.Element {
	for ctr := uint32(0); ; ctr++ {
		h := sha512.New()
		var b [12]byte
		binary.BigEndian.PutUint64(b[:8], seed)
		binary.BigEndian.PutUint32(b[8:], ctr)
		h.Write([]byte("cuzk dev setup: INSECURE\x00"))
		h.Write([]byte(label))
		h.Write(b[:])
		var e fr.Element
		e.SetBytes(h.Sum(nil)) // 512 bits reduced mod r: negligible bias
		if !e.IsZero() {
			return e
		}
	}
}

// Setup generates parameters for cs from seed. INSECURE: the toxic waste
// is derivable from the seed; for development, tests and benchmarks only.
func Setup(cs *r1cs.R1CS, seed uint64) (*params.ProvingKey, error) {
	return SetupWith(cs, seed, SetupOptions{})
}

// StageSetup is the stage a setup reports progress under.
const StageSetup = "setup"

// SetupOptions control SetupWith.
type SetupOptions struct {
	// Progress, when set, is told how the setup advances: stage
	// StageSetup, in points of the queries (Step names the query being
	// computed: ic, l, h, a, b_g1, b_g2; a b_g2 point costs ~3 of the
	// others, so the rate drops there).
	Progress progress.Func
}

// SetupWith is Setup with options.
func SetupWith(cs *r1cs.R1CS, seed uint64, opt SetupOptions) (*params.ProvingKey, error) {
	tw := toxic{
		tau:   derive(seed, "tau"),
		alpha: derive(seed, "alpha"),
		beta:  derive(seed, "beta"),
		gamma: derive(seed, "gamma"),
		delta: derive(seed, "delta"),
	}
	return setup(cs, &tw, progress.Serialised(opt.Progress))
}

func setup(cs *r1cs.R1CS, tw *toxic, report progress.Func) (*params.ProvingKey, error) {
	n := cs.DomainSize()
	dom := ntt.Domain(n)

	// Lagrange basis at τ: L_k(τ) = Z(τ)/N · ω^k/(τ − ω^k), Z(τ) = τ^N − 1.
	var zt, tauN fr.Element
	tauN.Exp(tw.tau, new(big.Int).SetUint64(uint64(n)))
	one := fr.One()
	zt.Sub(&tauN, &one)
	if zt.IsZero() {
		return nil, errors.New("groth16: setup: τ lies in the domain; choose another seed")
	}
	lag := make([]fr.Element, n)
	omegas := make([]fr.Element, n)
	w := fr.One()
	for k := range n {
		omegas[k] = w
		lag[k].Sub(&tw.tau, &w)
		w.Mul(&w, &dom.Generator)
	}
	lag = fr.BatchInvert(lag)
	var scale fr.Element
	scale.Mul(&zt, &dom.CardinalityInv)
	for k := range lag {
		lag[k].Mul(&lag[k], &omegas[k]).Mul(&lag[k], &scale)
	}

	// u_j(τ), v_j(τ), w_j(τ) over all variables.
	nv := cs.NumVars()
	u, v, wv := make([]fr.Element, nv), make([]fr.Element, nv), make([]fr.Element, nv)
	accumulate := func(m *r1cs.Matrix, dst []fr.Element) {
		var t fr.Element
		for k := 0; k < cs.NumConstraints; k++ {
			for j := m.RowPtr[k]; j < m.RowPtr[k+1]; j++ {
				t.Mul(&cs.Coeffs[m.Val[j]], &lag[k])
				dst[m.Col[j]].Add(&dst[m.Col[j]], &t)
			}
		}
	}
	accumulate(&cs.A, u)
	accumulate(&cs.B, v)
	accumulate(&cs.C, wv)
	for i := 0; i < cs.NumInputs; i++ { // appended rows: A = x_i
		u[i].Add(&u[i], &lag[cs.NumConstraints+i])
	}

	var gammaInv, deltaInv fr.Element
	gammaInv.Inverse(&tw.gamma)
	deltaInv.Inverse(&tw.delta)

	// (β·u + α·v + w) / γ for inputs, / δ for aux.
	icS := make([]fr.Element, cs.NumInputs)
	lS := make([]fr.Element, cs.NumAux)
	for j := range nv {
		var s, t fr.Element
		s.Mul(&tw.beta, &u[j])
		t.Mul(&tw.alpha, &v[j])
		s.Add(&s, &t).Add(&s, &wv[j])
		if j < cs.NumInputs {
			icS[j].Mul(&s, &gammaInv)
		} else {
			lS[j-cs.NumInputs].Mul(&s, &deltaInv)
		}
	}

	// H_i = τ^i·Z(τ)/δ, i < N−1.
	hS := make([]fr.Element, n-1)
	var zd fr.Element
	zd.Mul(&zt, &deltaInv)
	pow := fr.One()
	for i := range hS {
		hS[i].Mul(&pow, &zd)
		pow.Mul(&pow, &tw.tau)
	}

	// A and B queries, filtered by density.
	d := &cs.Density
	aS := append([]fr.Element(nil), u[:cs.NumInputs]...)
	var bS []fr.Element
	for i := 0; i < cs.NumInputs; i++ {
		if d.BInput.Get(i) {
			bS = append(bS, v[i])
		}
	}
	for j := 0; j < cs.NumAux; j++ {
		if d.AAux.Get(j) {
			aS = append(aS, u[cs.NumInputs+j])
		}
		if d.BAux.Get(j) {
			bS = append(bS, v[cs.NumInputs+j])
		}
	}

	_, _, g1, g2 := bls.Generators()
	total := int64(len(icS) + len(lS) + len(hS) + len(aS) + 2*len(bS))
	var done atomic.Int64
	step := ""
	tick := func(n int) {
		report.Report(progress.Event{Stage: StageSetup, Step: step, Done: done.Add(int64(n)), Total: total, Unit: progress.Points})
	}
	c1 := newCombG1(&g1, max(len(lS), len(hS), len(aS), len(bS)))
	mulG1 := func(name string, s []fr.Element) []bls.G1Affine {
		if len(s) == 0 {
			return []bls.G1Affine{}
		}
		step = name
		return c1.mul(s, tick)
	}
	pk := &params.ProvingKey{}
	pk.IC = mulG1("ic", icS)
	pk.L = mulG1("l", lS)
	pk.H = mulG1("h", hS)
	pk.A = mulG1("a", aS)
	pk.BG1 = mulG1("b_g1", bS)
	pk.BG2 = []bls.G2Affine{}
	if len(bS) > 0 {
		step = "b_g2"
		pk.BG2 = newCombG2(&g2, len(bS)).mul(bS, tick)
	}
	vkS := c1.mul([]fr.Element{tw.alpha, tw.beta, tw.delta})
	pk.Alpha1, pk.Beta1, pk.Delta1 = vkS[0], vkS[1], vkS[2]
	g2s := bls.BatchScalarMultiplicationG2(&g2, []fr.Element{tw.beta, tw.gamma, tw.delta})
	pk.Beta2, pk.Gamma2, pk.Delta2 = g2s[0], g2s[1], g2s[2]
	if err := checkKeyShape(pk, cs.NumInputs, cs.NumAux, n, d); err != nil {
		return nil, fmt.Errorf("groth16: setup: %w", err)
	}
	return pk, nil
}
