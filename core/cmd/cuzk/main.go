// Command cuzk proves and verifies Groth16 proofs over BLS12-381 with the
// cuzk prover: setup (development only), prove, verify, export to snarkjs,
// and a self-contained demo.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"

	"github.com/spf13/pflag"
	"go.uber.org/automaxprocs/maxprocs"
)

// Exit codes. verify uses exitInvalid for a well-formed proof that does not
// verify; every command uses exitBadInput for unusable input.
const (
	exitOK       = 0
	exitInvalid  = 1
	exitBadInput = 2
)

// badInput marks errors caused by the command's input (files, flags).
type badInput struct{ error }

func (b badInput) Unwrap() error { return b.error }

func inputErr(err error) error {
	if err == nil {
		return nil
	}
	return badInput{err}
}

type subcommand struct {
	summary string
	run     func(args []string, stdout io.Writer) error
}

var commands = map[string]subcommand{
	"setup":           {"generate development parameters for a circuit (INSECURE: seeded)", runSetup},
	"prove":           {"prove a circuit with a witness", runProve},
	"verify":          {"verify a proof (exit 0 valid, 1 invalid, 2 bad input)", runVerify},
	"export-snarkjs":  {"write verification_key.json, proof.json and public.json for snarkjs", runExport},
	"export-vk":       {"write the verifying key (.vk, bellperson's format) of a parameter file", runExportVK},
	"demo":            {"set up, prove and verify a built-in 2^16-constraint circuit and print stage timings", runDemo},
	"bench":           {"prove synthetic or given circuits through the engine and print throughput and stage medians", runBench},
	"dump-assignment": {"write the assignment-level inputs of one proof (a, b, c, witness, density bitmaps) for drop-in integrations", runDump},
	"generate":        {"write a synthetic PoRep-shaped circuit and witness (circom formats)", runGenerate},
	"cache":           {"list or clear the parameter cache of demo and bench (cuzk cache list|clear)", runCache},
	"info":            {"say what each file is (params, vk, proofs, circom r1cs/wtns, cuzk circuit, snarkjs JSON) and its sizes", runInfo},
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: cuzk <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-16s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'cuzk <command> -h' for its flags; 'cuzk --version' for the version.")
}

func main() {
	// Honour container CPU quotas, silently.
	_, _ = maxprocs.Set(maxprocs.Logger(func(string, ...any) {}))
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// version is set at build time (make: -ldflags "-X main.version=...").
var version = "dev"

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version" || args[0] == "version") {
		fmt.Fprintf(stdout, "cuzk %s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return exitOK
	}
	if len(args) == 0 {
		usage(stderr)
		return exitBadInput
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout) // asked for: the result
		return exitOK
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "cuzk: unknown command %q\n", args[0])
		usage(stderr)
		return exitBadInput
	}
	progressOut = stderr
	err := cmd.run(args[1:], stdout)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, pflag.ErrHelp):
		return exitOK
	case errors.Is(err, errInvalidProof):
		fmt.Fprintf(stderr, "cuzk %s: %v\n", args[0], err)
		return exitInvalid
	}
	fmt.Fprintf(stderr, "cuzk %s: %v\n", args[0], err)
	var bad badInput
	if errors.As(err, &bad) {
		return exitBadInput
	}
	return 1
}
