package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
)

func cli(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestCommands runs setup → prove → verify → export-snarkjs on a generated
// circuit written in both circuit formats, then the error exits.
func TestCommands(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	cs, w, err := synthetic.Generate(synthetic.Spec{Constraints: 1 << 10, DenseFraction: 0.3, Seed: 9})
	require.NoError(t, err)
	require.NoError(t, cs.WriteFile(p("c.cuzk")))
	require.NoError(t, os.WriteFile(p("c.r1cs"), cs.EncodeCircomR1CS(), 0o644))
	require.NoError(t, os.WriteFile(p("w.wtns"), r1cs.EncodeCircomWitness(w), 0o644))

	code, out, errs := cli(t, "setup", "--r1cs", p("c.cuzk"), "--out", p("c.params"), "--seed", "5")
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "not for production")

	for _, circuit := range []string{"c.cuzk", "c.r1cs"} {
		code, _, errs = cli(t, "prove", "--params", p("c.params"), "--r1cs", p(circuit), "--wtns", p("w.wtns"),
			"--out", p("proof.bin"), "--public", p("public.json"))
		require.Equal(t, 0, code, errs)
		proof, err := os.ReadFile(p("proof.bin"))
		require.NoError(t, err)
		require.Len(t, proof, 192)
		code, out, errs = cli(t, "verify", "--vk", p("c.params"), "--proof", p("proof.bin"), "--public", p("public.json"))
		require.Equal(t, 0, code, errs)
		require.Equal(t, "valid\n", out)
	}
	// export-vk writes a .vk that verify accepts (and that is the
	// parameter file's prefix, byte for byte).
	code, _, errs = cli(t, "export-vk", "--params", p("c.params"), "--out", p("c.vk"))
	require.Equal(t, 0, code, errs)
	code, out, errs = cli(t, "verify", "--vk", p("c.vk"), "--proof", p("proof.bin"), "--public", p("public.json"))
	require.Equal(t, 0, code, errs)
	require.Equal(t, "valid\n", out)
	vkBytes, err := os.ReadFile(p("c.vk"))
	require.NoError(t, err)
	paramBytes, err := os.ReadFile(p("c.params"))
	require.NoError(t, err)
	require.Equal(t, paramBytes[:len(vkBytes)], vkBytes)

	var pub []string
	data, _ := os.ReadFile(p("public.json"))
	require.NoError(t, json.Unmarshal(data, &pub))
	require.Len(t, pub, cs.NumInputs-1)

	code, _, errs = cli(t, "export-snarkjs", "--vk", p("c.params"), "--proof", p("proof.bin"), "--public", p("public.json"), "--out", p("js"))
	require.Equal(t, 0, code, errs)
	var vk map[string]any
	data, _ = os.ReadFile(p("js/verification_key.json"))
	require.NoError(t, json.Unmarshal(data, &vk))
	require.Equal(t, "bls12381", vk["curve"])
	require.EqualValues(t, cs.NumInputs-1, vk["nPublic"])

	// Wrong public input: invalid (1). Corrupt or missing files, bad
	// flags: bad input (2).
	pub[0] = "12345"
	bad, _ := json.Marshal(pub)
	require.NoError(t, os.WriteFile(p("wrong.json"), bad, 0o644))
	code, _, _ = cli(t, "verify", "--vk", p("c.params"), "--proof", p("proof.bin"), "--public", p("wrong.json"))
	require.Equal(t, exitInvalid, code)

	require.NoError(t, os.WriteFile(p("notjson.json"), []byte(`[1, 2]`), 0o644))
	require.NoError(t, os.WriteFile(p("big.json"), []byte(`["`+strings.Repeat("9", 80)+`"]`), 0o644))
	params, _ := os.ReadFile(p("c.params"))
	require.NoError(t, os.WriteFile(p("short.params"), params[:len(params)/2], 0o644))
	require.NoError(t, os.WriteFile(p("short.bin"), []byte{1, 2, 3}, 0o644))
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"verify", "--vk", p("c.params"), "--proof", p("proof.bin")}, "--public is required"},
		{[]string{"verify", "--vk", p("c.params"), "--proof", p("proof.bin"), "--public", p("notjson.json")}, "notjson.json is JSON of no kind cuzk knows (an array of 2 numbers); --public takes snarkjs public inputs"},
		{[]string{"verify", "--vk", p("c.params"), "--proof", p("proof.bin"), "--public", p("big.json")}, "not a decimal field element"},
		{[]string{"verify", "--vk", p("missing.vk"), "--proof", p("proof.bin"), "--public", p("public.json")}, "no such file"},
		{[]string{"verify", "--vk", p("c.params"), "--proof", p("short.bin"), "--public", p("public.json")}, "short.bin is a file of no kind cuzk knows (3 bytes; first bytes 01 02 03); --proof takes"},
		{[]string{"prove", "--params", p("short.params"), "--r1cs", p("c.cuzk"), "--wtns", p("w.wtns"), "--out", p("x")}, "truncated"},
		{[]string{"prove", "--params", p("c.params"), "--r1cs", p("c.params"), "--wtns", p("w.wtns"), "--out", p("x")}, "is a parameter file"},
		{[]string{"prove", "--params", p("c.params"), "--r1cs", p("c.cuzk"), "--wtns", p("c.r1cs"), "--out", p("x")}, "is a circom circuit (.r1cs)"},
		{[]string{"setup", "--r1cs", p("c.cuzk")}, "--out is required"},
		{[]string{"setup", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"setup", "-r1cs", p("c.cuzk")}, "-r1cs: flags are written with two dashes: --r1cs"},
		{[]string{"verify", p("c.params"), "--vk", p("c.params"), "--proof", p("proof.bin"), "--public", p("public.json")}, "unexpected argument"},
		{[]string{"frobnicate"}, "unknown command"},
	} {
		code, _, errs := cli(t, c.args...)
		require.Equal(t, exitBadInput, code, "%v: %s", c.args, errs)
		require.Contains(t, errs, c.msg, "%v", c.args)
	}

	// A proof whose points do not decode is an invalid proof (1), with a
	// message about the proof: a bit flipped in each point in turn.
	good, err := os.ReadFile(p("proof.bin"))
	require.NoError(t, err)
	for _, at := range []int{0, 48, 100, 144, 191} {
		flipped := append([]byte(nil), good...)
		flipped[at] ^= 0x01
		require.NoError(t, os.WriteFile(p("flipped.bin"), flipped, 0o644))
		code, _, errs = cli(t, "verify", "--vk", p("c.params"), "--proof", p("flipped.bin"), "--public", p("public.json"))
		require.Equal(t, exitInvalid, code, "byte %d flipped: %s", at, errs)
		require.NotContains(t, errs, "bad input")
	}

	// An unsatisfied witness is refused before proving, naming the row.
	w.Aux[len(w.Aux)-1].SetUint64(7)
	require.NoError(t, os.WriteFile(p("bad.wtns"), r1cs.EncodeCircomWitness(w), 0o644))
	code, _, errs = cli(t, "prove", "--params", p("c.params"), "--r1cs", p("c.cuzk"), "--wtns", p("bad.wtns"), "--out", p("x"))
	require.Equal(t, exitBadInput, code)
	require.Contains(t, errs, "constraint not satisfied")
	_, err = os.Stat(p("x"))
	require.True(t, os.IsNotExist(err), "no proof file is written for a bad witness")
}

func TestVersionAndHelp(t *testing.T) {
	code, out, _ := cli(t, "--version")
	require.Equal(t, exitOK, code)
	require.Regexp(t, `^cuzk \S+ \(go`, out)
	code, out, errs := cli(t, "verify", "-h")
	require.Equal(t, exitOK, code)
	require.Empty(t, errs, "help asked for is the result, on stdout")
	for _, f := range []string{"--vk", "--proof", "--public"} {
		require.Regexp(t, f+` string \(required\)`, out)
	}
	code, out, _ = cli(t, "prove", "--help")
	require.Equal(t, exitOK, code)
	require.Regexp(t, `--trusted-params\s*\n`, out, "an optional flag is not marked")
	code, out, _ = cli(t, "help")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "usage: cuzk <command>")
	code, _, errs = cli(t)
	require.Equal(t, exitBadInput, code)
	require.Contains(t, errs, "usage: cuzk <command>")
}

func TestDemoSmall(t *testing.T) {
	code, out, errs := cli(t, "demo", "--cache", t.TempDir(), "--constraints", "1024")
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "proof verified")
	require.Contains(t, out, "msm b_g2")
}

func TestBenchSmall(t *testing.T) {
	code, out, errs := cli(t, "bench", "--cache", t.TempDir(), "--constraints", "512", "--partitions", "2",
		"--proofs", "3", "--concurrency", "2", "--waterfall", "--baseline")
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "verified 3/3 proofs")
	require.Contains(t, out, "throughput:")
	require.Contains(t, out, "waterfall")
	require.Contains(t, out, "ratio pipeline/baseline")
	// Each device's busy share of the proofs' wall time: some, never more.
	busy := regexp.MustCompile(`busy during the proofs: ([0-9.]+)%`).FindAllStringSubmatch(out, -1)
	require.NotEmpty(t, busy, out)
	for _, b := range busy {
		pct, err := strconv.ParseFloat(b[1], 64)
		require.NoError(t, err)
		require.Greater(t, pct, 0.0, out)
		require.LessOrEqual(t, pct, 100.0, out)
	}
	code, _, errs = cli(t, "bench", "--proofs", "0")
	require.Equal(t, exitBadInput, code)
	require.Contains(t, errs, "at least 1")
}

func TestGenerateAndDump(t *testing.T) {
	p := generated(t)
	code, _, errs := cli(t, "dump-assignment", "--params", p("c.params"), "--r1cs", p("c.r1cs"), "--wtns", p("w.wtns"), "--out", p("dump"))
	require.Equal(t, 0, code, errs)
	var meta assignmentMeta
	data, err := os.ReadFile(p("dump/assignment.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &meta))
	cs, err := r1cs.Open(p("c.r1cs"))
	require.NoError(t, err)
	require.Equal(t, cs.Rows(), meta.ABCSize)
	require.Equal(t, cs.Density.AAux.Count(), meta.AAuxPopcount)
	a, err := os.ReadFile(p("dump/a.bin"))
	require.NoError(t, err)
	require.Len(t, a, 32*cs.Rows())
	aux, err := os.ReadFile(p("dump/aux.bin"))
	require.NoError(t, err)
	require.Len(t, aux, 32*cs.NumAux)
	bm, err := os.ReadFile(p("dump/b_aux_density.bin"))
	require.NoError(t, err)
	require.Len(t, bm, 8*((cs.NumAux+63)/64))
	// --trusted-params skips only the subgroup check: the same files.
	code, _, errs = cli(t, "dump-assignment", "--trusted-params", "--params", p("c.params"), "--r1cs", p("c.r1cs"), "--wtns", p("w.wtns"), "--out", p("dump2"))
	require.Equal(t, 0, code, errs)
	require.Len(t, meta.Files, 8)
	for _, f := range append(meta.Files, "assignment.json") { // the listing too: written in one order
		x, err := os.ReadFile(p("dump/" + f))
		require.NoError(t, err)
		y, err := os.ReadFile(p("dump2/" + f))
		require.NoError(t, err)
		require.Equal(t, x, y, f)
	}
}

// TestGenerateWritesWhatTheBenchReads: generate --dump --tiled-params
// (no circuit or witness file) writes the same key and assignment as the
// long way round (generate, setup --tiled, dump-assignment), byte for byte;
// and it refuses a witness without its circuit, or nothing to write.
func TestGenerateWritesWhatTheBenchReads(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	gen := []string{"generate", "--constraints", "1000", "--dense", "0.1", "--seed", "3"}
	code, _, errs := cli(t, append(gen, "--r1cs", p("c.r1cs"), "--wtns", p("w.wtns"))...)
	require.Equal(t, 0, code, errs)
	code, _, errs = cli(t, "setup", "--tiled", "--seed", "5", "--r1cs", p("c.r1cs"), "--out", p("long.params"))
	require.Equal(t, 0, code, errs)
	code, _, errs = cli(t, "dump-assignment", "--params", p("long.params"), "--r1cs", p("c.r1cs"), "--wtns", p("w.wtns"), "--out", p("long"))
	require.Equal(t, 0, code, errs)

	code, out, errs := cli(t, append(gen, "--tiled-params", p("short.params"), "--tiled-seed", "5", "--dump", p("short"))...)
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "short.params")
	require.Contains(t, out, "wrote the assignment")
	same := func(x, y string) {
		t.Helper()
		a, err := os.ReadFile(x)
		require.NoError(t, err)
		b, err := os.ReadFile(y)
		require.NoError(t, err)
		require.True(t, bytes.Equal(a, b), "%s differs from %s", y, x)
	}
	same(p("long.params"), p("short.params"))
	for _, f := range dumpFiles {
		same(p("long/"+f), p("short/"+f))
	}
	_, err := os.Stat(p("short.r1cs"))
	require.True(t, os.IsNotExist(err))

	code, _, errs = cli(t, append(gen, "--wtns", p("x.wtns"))...)
	require.Equal(t, exitBadInput, code)
	require.Contains(t, errs, "go together")
	code, _, errs = cli(t, append(gen, "--tiled-params", p("x.params"))...)
	require.Equal(t, exitBadInput, code)
	require.Contains(t, errs, "nothing to write")
	_, err = os.Stat(p("x.params"))
	require.True(t, os.IsNotExist(err), "nothing is written when the command is refused")
}

// generated makes c.r1cs, w.wtns and c.params (cuzk generate and setup) in
// a new directory and returns a function naming files in it.
func generated(t *testing.T) func(name string) string {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	code, _, errs := cli(t, "generate", "--constraints", "256", "--r1cs", p("c.r1cs"), "--wtns", p("w.wtns"))
	require.Equal(t, 0, code, errs)
	code, _, errs = cli(t, "setup", "--r1cs", p("c.r1cs"), "--out", p("c.params"))
	require.Equal(t, 0, code, errs)
	return p
}
