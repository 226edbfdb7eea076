package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/cuzk/cuzk/core/engine"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
	"github.com/cuzk/cuzk/core/units"
)

func runDemo(args []string, stdout io.Writer) error {
	start := time.Now()
	c := command("demo")
	c.withCache("directory of the parameter cache (set up once, reused)")
	c.withQuiet()
	spec := synthetic.DemoSpec
	c.fs.IntVar(&spec.Constraints, "constraints", spec.Constraints, "rows of the demo circuit (a power of two fills the domain)")
	c.fs.Float64Var(&spec.DenseFraction, "dense", spec.DenseFraction, "share of hash-chain (dense) constraints; the rest are bit decompositions")
	c.fs.Uint64Var(&spec.Seed, "seed", spec.Seed, "witness seed")
	defer c.close()
	if err := c.start(args, stdout); err != nil {
		return err
	}
	pc, m, stdout := c.pc, c.m, c.stdout

	var cs *r1cs.R1CS
	var w *r1cs.Witness
	err := m.stage("generate circuit", func() (err error) {
		cs, w, err = synthetic.Generate(spec)
		return inputErr(err)
	})
	if err != nil {
		return err
	}
	e, err := c.startEngine(1)
	if err != nil {
		return err
	}
	defer e.Close()
	prefillOne(e, cs)
	pk, got, err := pc.params(m, cs)
	if err != nil {
		return err
	}
	warmKey(m, e, pk)
	var proof *params.Proof
	var rep engine.PartitionReport
	err = m.stage("prove", func() (err error) {
		proof, rep, err = proveOne(m, e, cs, pk, w)
		return err
	})
	if err != nil {
		return err
	}
	verr := m.stage("verify", func() error { return groth16.Verify(&pk.VerifyingKey, proof, w.Inputs[1:]) })
	c.close()
	total := time.Since(start)

	fmt.Fprintf(stdout, "cuzk demo: %d constraints + %d input rows (domain 2^%d), %d aux variables\n",
		cs.NumConstraints, cs.NumInputs, log2(cs.DomainSize()), cs.NumAux)
	fmt.Fprintf(stdout, "%s\n%s\n\nwhole run, %s:\n", got.describe(), provedOn(e, rep), units.Duration(total))
	printTimes(stdout, m.times, total)
	fmt.Fprintln(stdout, "\nthe proof, by stage:")
	tl := rep.Timeline
	stages := append([]groth16.Stage{{Name: "synthesis (mat-vec)", Duration: tl.SynthEnd.Sub(tl.SynthStart)}}, rep.Stages...)
	proveTotal := tl.Assembled.Sub(tl.SynthStart)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stage\ttime\tshare\tscalars 0\tscalars 1\tother\t")
	for _, s := range stages {
		share := 100 * float64(s.Duration) / float64(max(proveTotal, 1))
		z, o, x := "", "", ""
		if s.MSM.Zeros+s.MSM.Ones+s.MSM.Others > 0 {
			z, o, x = fmt.Sprint(s.MSM.Zeros), fmt.Sprint(s.MSM.Ones), fmt.Sprint(s.MSM.Others)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.1f%%\t%s\t%s\t%s\t\n", s.Name, units.Duration(s.Duration), share, z, o, x)
	}
	fmt.Fprintf(tw, "partition total\t%s\t100.0%%\t\t\t\t\n", units.Duration(proveTotal))
	tw.Flush()
	if verr != nil {
		return fmt.Errorf("the demo proof does not verify: %w", verr)
	}
	enc := proof.Bytes()
	fmt.Fprintf(stdout, "\nproof verified (%d bytes): %x…\n", len(enc), enc[:16])
	return nil
}
