package engine_test

import (
	"context"
	"fmt"

	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/engine"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
)

// A Go host proves through the engine directly: one circuit, its
// parameters (here a development setup; production reads a .params file
// with params.ReadProvingKey), two partitions, then an independent check of
// each proof with the verifier.
func Example() {
	cs, w1, err := synthetic.Generate(synthetic.Spec{Constraints: 1 << 8, DenseFraction: 0.5, Seed: 1})
	if err != nil {
		panic(err)
	}
	_, w2, err := synthetic.Generate(synthetic.Spec{Constraints: 1 << 8, DenseFraction: 0.5, Seed: 2})
	if err != nil {
		panic(err)
	}
	pk, err := groth16.Setup(cs, 42) // development only: the seed is the toxic waste
	if err != nil {
		panic(err)
	}

	eng, err := engine.New(config.Default(), engine.Options{})
	if err != nil {
		panic(err)
	}
	defer eng.Close()

	req := engine.Request{
		Circuit:    &engine.Circuit{ID: "example", CS: cs, PK: pk},
		Partitions: []engine.Partition{{Witness: w1}, {Witness: w2}},
		Priority:   engine.Normal,
	}
	proofs, _, err := eng.Prove(context.Background(), req)
	if err != nil {
		panic(err)
	}
	for i, p := range proofs {
		inputs := []*r1cs.Witness{w1, w2}[i].Inputs // inputs[0] is the constant ONE
		fmt.Printf("partition %d: verified %v\n", i, groth16.Verify(&pk.VerifyingKey, &p, inputs[1:]) == nil)
	}
	// Output:
	// partition 0: verified true
	// partition 1: verified true
}
