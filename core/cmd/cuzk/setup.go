package main

import (
	"fmt"
	"io"
	"time"

	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/synthetic"
)

func runSetup(args []string, stdout io.Writer) error {
	fs := flags("setup")
	circuit := fs.String("r1cs", "", "circuit (circom .r1cs or cuzk format)")
	out := fs.String("out", "", "parameter file to write")
	seed := fs.Uint64("seed", 0, "seed of the development setup (INSECURE: anyone who knows it can forge proofs)")
	tiled := fs.Bool("tiled", false, "write a benchmark key instead: valid points of the right shape, tiled (seconds at any size; proofs do NOT verify, run with verify_proofs = false)")
	cfgPath := fs.String("config", "", "configuration (TOML or JSON); srs.validation_record_dir is where the written file is recorded as valid")
	if err := parse(fs, args, "r1cs", "out"); err != nil {
		return err
	}
	cfg, err := loadConfig(*cfgPath)
	if err != nil {
		return err
	}
	cs, err := loadCircuit(*circuit)
	if err != nil {
		return err
	}
	start := time.Now()
	what := "development setup, not for production"
	var pk *params.ProvingKey
	if *tiled {
		pk, what = synthetic.TiledKey(cs, *seed), "tiled benchmark key: proofs do not verify"
	} else if pk, err = groth16.Setup(cs, *seed); err != nil {
		return err
	}
	if err := pk.WriteFile(*out); err != nil {
		return inputErr(err)
	}
	// This program computed every point: the file needs no check on load.
	recordWritten(*out, cfg)
	fmt.Fprintf(stdout, "wrote %s: %d constraints, %d inputs, %d aux, domain 2^%d, in %v (%s)\n",
		*out, cs.NumConstraints, cs.NumInputs, cs.NumAux, log2(len(pk.H)+1), time.Since(start).Round(time.Millisecond), what)
	return nil
}

func log2(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}
