package main

import (
	"fmt"
	"io"
	"time"

	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
	"github.com/cuzk/cuzk/core/units"
)

func runSetup(args []string, stdout io.Writer) error {
	start := time.Now()
	c := command("setup")
	circuit := c.input("r1cs", "circuit (circom .r1cs or cuzk format)")
	out := c.output("out", "parameter file to write")
	seed := c.fs.Uint64("seed", 0, "seed of the development setup (INSECURE: anyone who knows it can forge proofs)")
	tiled := c.fs.Bool("tiled", false, "write a benchmark key instead: valid points of the right shape, tiled (seconds at any size; proofs do NOT verify, run with verify_proofs = false)")
	c.withConfig("configuration (TOML or JSON); srs.validation_record_dir is where the written file is recorded as valid")
	c.withQuiet()
	c.require("r1cs", "out")
	defer c.close()
	if err := c.start(args, stdout); err != nil {
		return err
	}
	m, stdout := c.m, c.stdout
	var cs *r1cs.R1CS
	if err := m.stage("load circuit", func() (err error) { cs, err = loadCircuit(*circuit); return }); err != nil {
		return err
	}
	what := "development setup, not for production"
	if *tiled {
		// Streamed from its tiles: a 2^27-domain key (~71 GB) is never
		// held in memory.
		what = "tiled benchmark key: proofs do not verify"
		if err := m.stage("write", func() error { return synthetic.WriteTiledKey(*out, cs, *seed) }); err != nil {
			return inputErr(err)
		}
	} else {
		var pk *params.ProvingKey
		err := m.stage(groth16.StageSetup, func() (err error) {
			pk, err = groth16.SetupWith(cs, *seed, groth16.SetupOptions{Progress: m.events("")})
			return err
		})
		if err != nil {
			return err
		}
		if err := m.stage("write", func() error { return pk.WriteFile(*out) }); err != nil {
			return inputErr(err)
		}
	}
	// This program computed every point: the file needs no check on load.
	recordWritten(m, *out, c.cfg)
	c.close()
	total := time.Since(start)
	fmt.Fprintf(stdout, "wrote %s: %d constraints, %d inputs, %d aux, domain 2^%d, in %v (%s)\n",
		*out, cs.NumConstraints, cs.NumInputs, cs.NumAux, log2(cs.DomainSize()), units.Duration(total), what)
	printTimes(stdout, m.times, total)
	return nil
}

func log2(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}
