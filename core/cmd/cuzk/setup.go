package main

import (
	"fmt"
	"io"
	"time"

	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
)

func runSetup(args []string, stdout io.Writer) error {
	start := time.Now()
	fs := flags("setup")
	circuit := fs.String("r1cs", "", "circuit (circom .r1cs or cuzk format)")
	out := fs.String("out", "", "parameter file to write")
	seed := fs.Uint64("seed", 0, "seed of the development setup (INSECURE: anyone who knows it can forge proofs)")
	tiled := fs.Bool("tiled", false, "write a benchmark key instead: valid points of the right shape, tiled (seconds at any size; proofs do NOT verify, run with verify_proofs = false)")
	cfgPath := fs.String("config", "", "configuration (TOML or JSON); srs.validation_record_dir is where the written file is recorded as valid")
	quiet := fs.Bool("quiet", false, quietHelp)
	if err := parse(fs, args, "r1cs", "out"); err != nil {
		return err
	}
	cfg, err := loadConfig(*cfgPath)
	if err != nil {
		return err
	}
	m := newMeter(progressOut, *quiet)
	defer m.close()
	stdout = m.writer(stdout)
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
		err = m.stage(groth16.StageSetup, func() (err error) {
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
	recordWritten(m, *out, cfg)
	m.close()
	total := time.Since(start)
	fmt.Fprintf(stdout, "wrote %s: %d constraints, %d inputs, %d aux, domain 2^%d, in %v (%s)\n",
		*out, cs.NumConstraints, cs.NumInputs, cs.NumAux, log2(cs.DomainSize()), roundDuration(total), what)
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
