package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cuzk/cuzk/core/engine"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/snarkjs"
	"github.com/cuzk/cuzk/core/units"
)

var errInvalidProof = groth16.ErrInvalidProof

func runProve(args []string, stdout io.Writer) error {
	start := time.Now()
	c := command("prove")
	pkPath := c.input("params", "parameter file (.params)")
	circuit := c.input("r1cs", "circuit (circom .r1cs or cuzk format)")
	wtns := c.input("wtns", "witness (circom .wtns)")
	out := c.output("out", "proof file to write (192 bytes)")
	public := c.output("public", "also write the public inputs here (snarkjs public.json)")
	trusted := c.fs.Bool("trusted-params", false, trustedHelp)
	c.withConfig(configHelp)
	c.withQuiet()
	c.require("params", "r1cs", "wtns", "out")
	defer c.close()
	if err := c.start(args, stdout); err != nil {
		return err
	}
	m, stdout := c.m, c.stdout
	// The engine first: its GPU checks the key's subgroup as it loads.
	e, err := c.startEngine(1)
	if err != nil {
		return err
	}
	defer e.Close()
	cs, w, pk, err := loadProveInputs(m, e, *circuit, *wtns, *pkPath, c.cfg, *trusted)
	if err != nil {
		return err
	}
	if err := groth16.CheckKey(pk, cs); err != nil {
		return inputErr(err)
	}
	warmKey(m, e, pk)
	var proof *params.Proof
	var rep engine.PartitionReport
	// Never hand out an unverified proof. The witness satisfies the circuit
	// (checked), so a proof that fails verification (the engine's, with
	// verify_proofs, or the one here) most likely comes from a parameter
	// file whose verifying key does not belong to its proving key
	// (corrupted, or assembled from two files): an input problem, named as
	// such, with the other possibility said too; not an invalid proof
	// given to verify (exit 1).
	unverified := func(err error) error {
		return inputErr(fmt.Errorf("the proof made with %s does not verify against the same file's verifying key, so it was not written: the file's verifying and proving keys do not belong together (a corrupted or assembled file?), or cuzk has a bug: %v", *pkPath, err))
	}
	err = m.stage("prove", func() (err error) {
		proof, rep, err = proveOne(m, e, cs, pk, w)
		return err
	})
	switch {
	case errors.Is(err, engine.ErrNotVerified):
		return unverified(err)
	case err != nil:
		return inputErr(err)
	}
	if err := m.stage("verify", func() error { return groth16.Verify(&pk.VerifyingKey, proof, w.Inputs[1:]) }); err != nil {
		return unverified(err)
	}
	err = m.stage("write", func() error {
		enc := proof.Bytes()
		if err := writeFile(*out, enc[:]); err != nil {
			return err
		}
		if *public == "" {
			return nil
		}
		js, err := snarkjs.FormatPublic(w.Inputs[1:])
		if err != nil {
			return err
		}
		return writeFile(*public, js)
	})
	if err != nil {
		return err
	}
	c.close()
	total := time.Since(start)
	fmt.Fprintln(stdout, provedOn(e, rep))
	fmt.Fprintf(stdout, "wrote %s (verified) in %s:\n", *out, units.Duration(total))
	printTimes(stdout, m.times, total)
	return nil
}

func runVerify(args []string, stdout io.Writer) error {
	c := command("verify")
	vkPath, proofPath, public := verifyInputs(c)
	c.require("vk", "proof", "public")
	defer c.close()
	if err := c.start(args, stdout); err != nil {
		return err
	}
	stdout = c.stdout
	vk, proof, pub, err := loadVerifyInputs(*vkPath, *proofPath, *public)
	if err != nil {
		return err
	}
	if err := groth16.Verify(vk, proof, pub); err != nil {
		if errors.Is(err, groth16.ErrInvalidProof) {
			return err
		}
		return inputErr(err)
	}
	fmt.Fprintln(stdout, "valid")
	return nil
}

// runExportVK writes the verifying-key prefix of a parameter file as a .vk
// file, which verify (and bellperson) read; its points are checked as
// verify's are.
func runExportVK(args []string, stdout io.Writer) error {
	c := command("export-vk")
	in := c.input("params", "parameter file (.params) or verifying key (.vk)")
	out := c.output("out", "verifying key to write (.vk)")
	c.require("params", "out")
	defer c.close()
	if err := c.start(args, stdout); err != nil {
		return err
	}
	stdout = c.stdout
	vk, err := loadVerifyingKey(anyVKIn, *in)
	if err != nil {
		return err
	}
	if err := vk.WriteFile(*out); err != nil {
		return inputErr(err)
	}
	fmt.Fprintf(stdout, "wrote %s: verifying key with %d public inputs\n", *out, len(vk.IC)-1)
	return nil
}

// snarkjsFiles are the files export-snarkjs writes, in its order.
var snarkjsFiles = []string{"verification_key.json", "proof.json", "public.json"}

// verifyInputs declares the inputs of verify and export-snarkjs.
func verifyInputs(c *invocation) (vk, proof, public *string) {
	vk = c.input("vk", "verifying key: .vk, parameter file (.params) or snarkjs verification_key.json")
	proof = c.input("proof", "proof: a 192-byte proof file or snarkjs proof.json")
	public = c.input("public", "public inputs (snarkjs public.json)")
	return vk, proof, public
}

func runExport(args []string, stdout io.Writer) error {
	c := command("export-snarkjs")
	vkPath, proofPath, public := verifyInputs(c)
	dir := c.outputDir("out", "directory to write verification_key.json, proof.json, public.json", snarkjsFiles...)
	c.require("vk", "proof", "public", "out")
	defer c.close()
	if err := c.start(args, stdout); err != nil {
		return err
	}
	stdout = c.stdout
	vk, proof, pub, err := loadVerifyInputs(*vkPath, *proofPath, *public)
	if err != nil {
		return err
	}
	if len(pub)+1 != len(vk.IC) {
		return inputErr(fmt.Errorf("%d public inputs, verifying key expects %d", len(pub), len(vk.IC)-1))
	}
	vkJSON, err := snarkjs.ExportVerifyingKey(vk)
	if err != nil {
		return err
	}
	proofJSON, err := snarkjs.ExportProof(proof)
	if err != nil {
		return err
	}
	pubJSON, err := snarkjs.FormatPublic(pub)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return inputErr(err)
	}
	for i, data := range [][]byte{vkJSON, proofJSON, pubJSON} {
		if err := writeFile(filepath.Join(*dir, snarkjsFiles[i]), data); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "wrote %s/{verification_key,proof,public}.json\n", *dir)
	return nil
}
