package groth16

import (
	"fmt"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
)

// Benchmark witnesses: "boolean" is PoRep-like (5% of constraints in the
// dense hash section, so most aux values are bits); "dense" is 95% hash.
var benchWitness = []struct {
	name  string
	dense float64
}{{"boolean", 0.05}, {"dense", 0.95}}

type benchCase struct {
	cs  *r1cs.R1CS
	w   *r1cs.Witness
	pk  *params.ProvingKey
	asg *Assignment
}

var benchCache sync.Map

func benchSetup(b *testing.B, logN int, dense float64) *benchCase {
	key := fmt.Sprint(logN, dense)
	if c, ok := benchCache.Load(key); ok {
		return c.(*benchCase)
	}
	cs, w, err := synthetic.Generate(synthetic.Spec{Constraints: 1 << logN, DenseFraction: dense, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	pk, err := Setup(cs, 1)
	if err != nil {
		b.Fatal(err)
	}
	n := cs.DomainSize()
	asg := &Assignment{A: make([]fr.Element, n), B: make([]fr.Element, n), C: make([]fr.Element, n),
		Inputs: w.Inputs, Aux: w.Aux, Density: &cs.Density}
	if err := cs.Eval(w, asg.A, asg.B, asg.C, r1cs.EvalOptions{}); err != nil {
		b.Fatal(err)
	}
	c := &benchCase{cs: cs, w: w, pk: pk, asg: asg}
	benchCache.Store(key, c)
	return c
}

func (c *benchCase) freshAssignment() *Assignment {
	a := *c.asg
	a.A = append([]fr.Element(nil), c.asg.A...)
	a.B = append([]fr.Element(nil), c.asg.B...)
	a.C = append([]fr.Element(nil), c.asg.C...)
	return &a
}

var benchSizes = []int{12, 14, 16, 18}

// BenchmarkProve times Prove (mat-vec included) and reports each stage's
// share of the total as a metric.
func BenchmarkProve(b *testing.B) {
	for _, logN := range benchSizes {
		for _, wt := range benchWitness {
			b.Run(fmt.Sprintf("2^%d/%s", logN, wt.name), func(b *testing.B) {
				c := benchSetup(b, logN, wt.dense)
				shares := map[string]float64{}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					_, rep, err := Prove(c.pk, c.cs, c.w, Options{})
					if err != nil {
						b.Fatal(err)
					}
					for _, s := range rep.Stages {
						shares[s.Name] += float64(s.Duration) / float64(rep.Total) / float64(b.N)
					}
				}
				for name, share := range shares {
					b.ReportMetric(100*share, "%"+shortName(name))
				}
			})
		}
	}
}

func shortName(stage string) string {
	return map[string]string{StageMatVec: "matvec", StageFFT: "ntt", StageMSMH: "H", StageMSML: "L",
		StageMSMA: "A", StageMSMB1: "B1", StageMSMB2: "B2", StageOther: "other"}[stage]
}

// BenchmarkProveAssignment times the proving stages alone (no mat-vec), the
// figure to compare with BenchmarkMaths.
func BenchmarkProveAssignment(b *testing.B) {
	for _, logN := range benchSizes {
		for _, wt := range benchWitness {
			b.Run(fmt.Sprintf("2^%d/%s", logN, wt.name), func(b *testing.B) {
				c := benchSetup(b, logN, wt.dense)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					asg := c.freshAssignment()
					b.StartTimer()
					if _, _, err := ProveAssignment(c.pk, asg, Options{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkMaths does the same FFT and MSM work directly through
// gnark-crypto, without the 0/1 split: seven NTTs and the pointwise step,
// then MultiExp over the full H, L, A, B_G1 and B_G2 vectors. The prover's
// overhead is ProveAssignment / Maths − 1 (negative where the 0/1 split
// saves work).
func BenchmarkMaths(b *testing.B) {
	for _, logN := range benchSizes {
		for _, wt := range benchWitness {
			b.Run(fmt.Sprintf("2^%d/%s", logN, wt.name), func(b *testing.B) {
				c := benchSetup(b, logN, wt.dense)
				aS := gather(c.w.Inputs, nil, c.w.Aux, &c.cs.Density.AAux)
				bS := gather(c.w.Inputs, &c.cs.Density.BInput, c.w.Aux, &c.cs.Density.BAux)
				cfg := ecc.MultiExpConfig{}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					asg := c.freshAssignment()
					b.StartTimer()
					dom := fft.NewDomain(uint64(len(asg.A)), fft.WithCache())
					for _, v := range [][]fr.Element{asg.A, asg.B, asg.C} {
						dom.FFTInverse(v, fft.DIF)
						dom.FFT(v, fft.DIT, fft.OnCoset())
					}
					for j := range asg.A {
						asg.A[j].Mul(&asg.A[j], &asg.B[j]).Sub(&asg.A[j], &asg.C[j])
					}
					dom.FFTInverse(asg.A, fft.DIF, fft.OnCoset())
					var j1 bls.G1Jac
					var j2 bls.G2Jac
					g1 := []struct {
						p []bls.G1Affine
						s []fr.Element
					}{{c.pk.H, asg.A[:len(c.pk.H)]}, {c.pk.L, c.w.Aux}, {c.pk.A, aS}, {c.pk.BG1, bS}}
					for _, m := range g1 {
						if _, err := j1.MultiExp(m.p, m.s, cfg); err != nil {
							b.Fatal(err)
						}
					}
					if _, err := j2.MultiExp(c.pk.BG2, bS, cfg); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
