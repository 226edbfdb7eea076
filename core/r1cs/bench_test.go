package r1cs_test

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
)

// BenchmarkEval times the engine's synthesis of a 2^20-row PoRep-shaped
// partition (3% hash chain): the mat-vec alone, the mat-vec followed by
// the separate satisfaction pass, and the mat-vec checking each row as it
// goes (EvalOptions.Check): go test -bench Eval -run '^$' ./core/r1cs/
func BenchmarkEval(b *testing.B) {
	cs, w, err := synthetic.Generate(synthetic.Spec{Constraints: 1<<20 - 64, DenseFraction: 0.03, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	n := cs.DomainSize()
	x, y, z := make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n)
	b.Run("eval", func(b *testing.B) {
		for range b.N {
			if err := cs.Eval(w, x, y, z, r1cs.EvalOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("eval+CheckEvaluation", func(b *testing.B) {
		for range b.N {
			if err := cs.Eval(w, x, y, z, r1cs.EvalOptions{}); err != nil {
				b.Fatal(err)
			}
			if err := cs.CheckEvaluation(x, y, z); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("eval(check)", func(b *testing.B) {
		for range b.N {
			if err := cs.Eval(w, x, y, z, r1cs.EvalOptions{Check: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("CheckEvaluation", func(b *testing.B) {
		for range b.N {
			if err := cs.CheckEvaluation(x, y, z); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDecodeCircomR1CS times the parse of a 2^20-row circom .r1cs
// (3% hash chain, ~164 MiB), the first stage of `cuzk prove` and `cuzk
// bench --r1cs`: go test -bench DecodeCircom -run '^$' ./core/r1cs/
func BenchmarkDecodeCircomR1CS(b *testing.B) {
	cs, _, err := synthetic.Generate(synthetic.Spec{Constraints: 1<<20 - 64, DenseFraction: 0.03, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	data := cs.EncodeCircomR1CS()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		if _, err := r1cs.DecodeCircomR1CS(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeCircomR1CS times writing a 2^20-row circuit in circom's
// format (cuzk generate's output): go test -bench EncodeCircom -run '^$' ./core/r1cs/
func BenchmarkEncodeCircomR1CS(b *testing.B) {
	cs, _, err := synthetic.Generate(synthetic.Spec{Constraints: 1<<20 - 64, DenseFraction: 0.03, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		b.SetBytes(int64(len(cs.EncodeCircomR1CS())))
	}
}
