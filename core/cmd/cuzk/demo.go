package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
)

func runDemo(args []string, stdout io.Writer) error {
	fs := flags("demo")
	cache := fs.String("cache", defaultCache(), "directory for the demo's parameters (set up once, reused)")
	spec := synthetic.DemoSpec
	fs.IntVar(&spec.Constraints, "constraints", spec.Constraints, "rows of the demo circuit (a power of two fills the domain)")
	fs.Float64Var(&spec.DenseFraction, "dense", spec.DenseFraction, "share of hash-chain (dense) constraints; the rest are bit decompositions")
	fs.Uint64Var(&spec.Seed, "seed", spec.Seed, "witness seed")
	if err := parse(fs, args); err != nil {
		return err
	}
	t0 := time.Now()
	cs, w, err := synthetic.Generate(spec)
	if err != nil {
		return inputErr(err)
	}
	genTime := time.Since(t0)

	t0 = time.Now()
	pk, path, cached, err := cachedParams(*cache, cs)
	if err != nil {
		return err
	}
	setupTime := time.Since(t0)

	proof, rep, err := groth16.Prove(pk, cs, w, groth16.Options{})
	if err != nil {
		return err
	}
	t0 = time.Now()
	verr := groth16.Verify(&pk.VerifyingKey, proof, w.Inputs[1:])
	verifyTime := time.Since(t0)

	fmt.Fprintf(stdout, "cuzk demo: %d constraints + %d input rows (domain 2^%d), %d aux variables\n",
		cs.NumConstraints, cs.NumInputs, log2(cs.DomainSize()), cs.NumAux)
	how := "development setup, written to"
	if cached {
		how = "parameters loaded from"
	}
	fmt.Fprintf(stdout, "circuit generated in %v; %s %s in %v\n\n", genTime.Round(time.Millisecond), how, path, setupTime.Round(time.Millisecond))
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stage\ttime\tshare\tscalars 0\tscalars 1\tother\t")
	for _, s := range rep.Stages {
		share := 100 * float64(s.Duration) / float64(rep.Total)
		z, o, x := "", "", ""
		if s.MSM.Zeros+s.MSM.Ones+s.MSM.Others > 0 {
			z, o, x = fmt.Sprint(s.MSM.Zeros), fmt.Sprint(s.MSM.Ones), fmt.Sprint(s.MSM.Others)
		}
		fmt.Fprintf(tw, "%s\t%v\t%.1f%%\t%s\t%s\t%s\t\n", s.Name, s.Duration.Round(10*time.Microsecond), share, z, o, x)
	}
	fmt.Fprintf(tw, "prove total\t%v\t100.0%%\t\t\t\t\n", rep.Total.Round(10*time.Microsecond))
	fmt.Fprintf(tw, "verify\t%v\t\t\t\t\t\n", verifyTime.Round(10*time.Microsecond))
	tw.Flush()
	if verr != nil {
		return fmt.Errorf("the demo proof does not verify: %w", verr)
	}
	enc := proof.Bytes()
	fmt.Fprintf(stdout, "\nproof verified (%d bytes): %x…\n", len(enc), enc[:16])
	return nil
}

// cachedParams loads the cached parameters of this exact circuit, or runs
// the development setup and caches its output.
func cachedParams(cache string, cs *r1cs.R1CS) (pk *params.ProvingKey, path string, cached bool, err error) {
	h := sha256.New()
	if _, err := cs.WriteTo(h); err != nil {
		return nil, "", false, err
	}
	path = filepath.Join(cache, fmt.Sprintf("circuit-%x.params", h.Sum(nil)[:8]))
	// The file is this program's own output: keep the curve checks, skip
	// the (slow) subgroup checks.
	pk, err = params.ReadProvingKey(path, params.Options{SkipSubgroupCheck: true})
	if err == nil && groth16.CheckKey(pk, cs) == nil {
		return pk, path, true, nil
	}
	if pk, err = groth16.Setup(cs, 1); err != nil {
		return nil, "", false, err
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return nil, "", false, inputErr(err)
	}
	if err := pk.WriteFile(path); err != nil {
		return nil, "", false, inputErr(err)
	}
	return pk, path, false, nil
}
