package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/filekind"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
)

// ecosystem makes one file of each kind with the command line's own
// commands (and the cuzk circuit format through r1cs, which no command
// writes): c.r1cs, w.wtns, c.params, c.vk, proof.bin, proofs.bin (two
// proofs), public.json, js/{verification_key,proof,public}.json,
// c.cuzk.
func ecosystem(t *testing.T) func(string) string {
	p := proved(t)
	for _, args := range [][]string{
		{"export-vk", "--params", p("c.params"), "--out", p("c.vk")},
		{"prove", "--params", p("c.params"), "--r1cs", p("c.r1cs"), "--wtns", p("w.wtns"), "--out", p("proof2.bin")},
		{"export-snarkjs", "--vk", p("c.params"), "--proof", p("proof.bin"), "--public", p("public.json"), "--out", p("js")},
	} {
		code, _, errs := cli(t, args...)
		require.Equal(t, 0, code, "%v: %s", args, errs)
	}
	one, err := os.ReadFile(p("proof.bin"))
	require.NoError(t, err)
	two, err := os.ReadFile(p("proof2.bin"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p("proofs.bin"), append(one, two...), 0o644))
	cs, err := r1cs.Open(p("c.r1cs"))
	require.NoError(t, err)
	require.NoError(t, cs.WriteFile(p("c.cuzk")))
	return p
}

// TestInfoEveryKind: cuzk info names each kind, with counts that match
// the circuit and key read by the full readers.
func TestInfoEveryKind(t *testing.T) {
	p := ecosystem(t)
	cs, err := r1cs.Open(p("c.r1cs"))
	require.NoError(t, err)
	pk, err := params.ReadProvingKey(p("c.params"), params.Options{})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p("notes.txt"), []byte("hello\n"), 0o644))
	pub := int64(cs.NumInputs - 1)
	want := []struct {
		file   string
		kind   filekind.Kind
		counts map[string]int64
	}{
		{"c.params", filekind.Params, map[string]int64{"public_inputs": pub, "aux_variables": int64(cs.NumAux), "rows_in_the_domain": int64(len(pk.H) + 1)}},
		{"c.vk", filekind.VerifyingKey, map[string]int64{"public_inputs": pub}},
		{"proof.bin", filekind.Proofs, map[string]int64{"proofs": 1}},
		{"proofs.bin", filekind.Proofs, map[string]int64{"proofs": 2}},
		{"c.r1cs", filekind.CircomR1CS, map[string]int64{"constraints": int64(cs.NumConstraints), "wires": int64(cs.NumVars()),
			"public_outputs": int64(cs.NumInputs - 1), "public_inputs": 0, "private_inputs": 0}},
		{"w.wtns", filekind.CircomWitness, map[string]int64{"values": int64(cs.NumVars())}},
		{"c.cuzk", filekind.CuzkCircuit, map[string]int64{"constraints": int64(cs.NumConstraints), "aux_variables": int64(cs.NumAux),
			"inputs_with_one": int64(cs.NumInputs)}},
		{"public.json", filekind.SnarkjsPublic, map[string]int64{"public_inputs": pub}},
		{"js/verification_key.json", filekind.SnarkjsVerifyingKey, map[string]int64{"public_inputs": pub}},
		{"js/proof.json", filekind.SnarkjsProof, nil},
		{"js/public.json", filekind.SnarkjsPublic, map[string]int64{"public_inputs": pub}},
		{"notes.txt", filekind.Unknown, nil},
	}
	args := []string{"info", "--json"}
	for _, w := range want {
		args = append(args, p(w.file))
	}
	code, out, errs := cli(t, args...)
	require.Equal(t, 0, code, errs)
	var reports []fileReport
	require.NoError(t, json.Unmarshal([]byte(out), &reports))
	require.Len(t, reports, len(want))
	for i, w := range want {
		r := reports[i]
		require.Equal(t, p(w.file), r.Path)
		require.Equal(t, w.kind.ID(), r.Kind, w.file)
		st, err := os.Stat(p(w.file))
		require.NoError(t, err)
		require.Equal(t, st.Size(), r.Size)
		for name, n := range w.counts {
			got, ok := r.Counts[name]
			require.True(t, ok, "%s: no count %s in %v", w.file, name, r.Counts)
			require.Equal(t, n, got, "%s: %s", w.file, name)
		}
		for key := range r.Counts {
			require.Regexp(t, `^[a-z0-9]+(_[a-z0-9]+)*$`, key, "%s: a key not in snake_case", w.file)
		}
	}
	require.Equal(t, map[string]int64{"ic": int64(len(pk.IC)), "h": int64(len(pk.H)), "l": int64(len(pk.L)),
		"a": int64(len(pk.A)), "b_g1": int64(len(pk.BG1)), "b_g2": int64(len(pk.BG2))}, reports[0].Points)

	// Flags after the files: the same report.
	code, after, errs := cli(t, append(append([]string{"info"}, args[2:]...), "--json")...)
	require.Equal(t, 0, code, errs)
	require.Equal(t, out, after)

	// The text form: a line naming the kind, then one a property.
	code, out, errs = cli(t, "info", p("w.wtns"), p("c.params"), p("notes.txt"))
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, p("w.wtns")+": a circom witness (.wtns)\n")
	require.Regexp(t, `\n  values +`+strconv.Itoa(cs.NumVars())+`\n`, out)
	require.Regexp(t, `\n  points +ic 3, h \d+, l \d+, a \d+, b_g1 \d+, b_g2 \d+\n`, out)
	require.Contains(t, out, p("notes.txt")+": a file of no kind cuzk knows\n")
	require.Contains(t, out, "starts with  68 65 6c 6c 6f 0a")

	// A missing file: said, the others still described, exit 2.
	code, out, errs = cli(t, "info", p("none"), p("c.vk"))
	require.Equal(t, exitBadInput, code)
	require.Contains(t, errs, "no such file")
	require.Contains(t, errs, "1 of 2 files could not be read")
	require.Contains(t, out, "a verifying key (bellperson .vk)")
	code, _, errs = cli(t, "info")
	require.Equal(t, exitBadInput, code)
	require.Contains(t, errs, "FILE... is required")
}

// TestWrongKindMessages gives each file of the ecosystem to each input
// flag that does not take its kind: every error names what the file is
// and what the flag takes, and is bad input (2).
func TestWrongKindMessages(t *testing.T) {
	p := ecosystem(t)
	files := []string{"c.params", "c.vk", "proof.bin", "proofs.bin", "c.r1cs", "w.wtns", "c.cuzk",
		"public.json", "js/verification_key.json", "js/proof.json"}
	good := map[string]string{"--params": p("c.params"), "--r1cs": p("c.r1cs"), "--wtns": p("w.wtns"),
		"--vk": p("c.params"), "--proof": p("proof.bin"), "--public": p("public.json")}
	commands := map[string][]string{ // the flags each is tried with
		"prove":     {"--params", "--r1cs", "--wtns", "--config"},
		"verify":    {"--vk", "--proof", "--public"},
		"export-vk": {"--params"},
	}
	takes := map[string]input{"--params": paramsIn, "--r1cs": circuitIn, "--wtns": witnessIn,
		"--vk": vkIn, "--proof": proofIn, "--public": publicIn, "--config": configIn}
	tried := 0
	for cmd, flagsOf := range commands {
		for _, flag := range flagsOf {
			in := takes[flag]
			if cmd == "export-vk" {
				in = anyVKIn
			}
			for _, f := range files {
				info, err := filekind.SniffFile(p(f))
				require.NoError(t, err)
				if in.Takes(info.Kind) || (cmd == "export-vk" && info.Kind == filekind.VerifyingKey) {
					continue
				}
				var args []string
				switch cmd {
				case "prove":
					args = []string{"prove", "--params", good["--params"], "--r1cs", good["--r1cs"], "--wtns", good["--wtns"], "--out", p("x.bin")}
				case "verify":
					args = []string{"verify", "--vk", good["--vk"], "--proof", good["--proof"], "--public", good["--public"]}
				case "export-vk":
					args = []string{"export-vk", "--params", good["--params"], "--out", p("x.vk")}
				}
				if flag == "--config" {
					args = append(args, "--config", p(f))
				} else {
					for i := range args {
						if args[i] == flag {
							args[i+1] = p(f)
						}
					}
				}
				code, _, errs := cli(t, args...)
				require.Equal(t, exitBadInput, code, "%v: %s", args, errs)
				require.Contains(t, errs, flag+": "+p(f)+" is "+info.Kind.String(), "%v", args)
				require.Contains(t, errs, "; "+flag+" takes "+in.Wants(), "%v", args)
				tried++
			}
		}
	}
	require.Greater(t, tried, 50)

	// The complaints, word for word: a witness as --params,
	// a witness as --r1cs, snarkjs's proof.json as a binary proof no more.
	code, _, errs := cli(t, "prove", "--params", p("w.wtns"), "--r1cs", p("c.r1cs"), "--wtns", p("w.wtns"), "--out", p("x"))
	require.Equal(t, exitBadInput, code)
	require.NotContains(t, errs, "invalid encoding flags")
	require.Contains(t, errs, "is a circom witness (.wtns) with")
	code, _, errs = cli(t, "prove", "--params", p("c.params"), "--r1cs", p("w.wtns"), "--wtns", p("w.wtns"), "--out", p("x"))
	require.Equal(t, exitBadInput, code)
	require.NotContains(t, errs, "bad magic")
}

// TestVerifySnarkjsJSON: verify takes snarkjs's verification_key.json and
// proof.json, alone or mixed with bellperson's files; a wrong public
// input or a tampered proof is invalid (1).
func TestVerifySnarkjsJSON(t *testing.T) {
	p := ecosystem(t)
	for _, c := range [][2]string{
		{"js/verification_key.json", "js/proof.json"},
		{"js/verification_key.json", "proof.bin"},
		{"c.vk", "js/proof.json"},
		{"c.params", "js/proof.json"},
	} {
		code, out, errs := cli(t, "verify", "--vk", p(c[0]), "--proof", p(c[1]), "--public", p("js/public.json"))
		require.Equal(t, 0, code, "%v: %s", c, errs)
		require.Equal(t, "valid\n", out)
	}
	var pub []string
	data, err := os.ReadFile(p("js/public.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &pub))
	pub[0] = "12345"
	data, _ = json.Marshal(pub)
	require.NoError(t, os.WriteFile(p("wrong.json"), data, 0o644))
	code, _, _ := cli(t, "verify", "--vk", p("js/verification_key.json"), "--proof", p("js/proof.json"), "--public", p("wrong.json"))
	require.Equal(t, exitInvalid, code)

	var proof map[string]any
	data, err = os.ReadFile(p("js/proof.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &proof))
	tamper := func(name string, f func(m map[string]any)) string {
		m := map[string]any{}
		for k, v := range proof {
			m[k] = v
		}
		f(m)
		out, err := json.Marshal(m)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(p(name), out, 0o644))
		return p(name)
	}
	swapped := tamper("swapped.json", func(m map[string]any) { m["pi_a"], m["pi_c"] = m["pi_c"], m["pi_a"] })
	offCurve := tamper("off.json", func(m map[string]any) { m["pi_a"] = []string{"1", "2", "1"} })
	bn := tamper("bn.json", func(m map[string]any) { m["curve"] = "bn128" })
	for path, want := range map[string]int{swapped: exitInvalid, offCurve: exitInvalid, bn: exitBadInput} {
		code, _, errs := cli(t, "verify", "--vk", p("js/verification_key.json"), "--proof", path, "--public", p("js/public.json"))
		require.Equal(t, want, code, "%s: %s", filepath.Base(path), errs)
	}
}

// TestOutputErrorsNameTheFile: an output in a missing directory is named
// with its flag and the directory missing, before any work.
func TestOutputErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "missing", "c.r1cs")
	code, _, errs := cli(t, "generate", "--constraints", "64", "--r1cs", out, "--wtns", filepath.Join(dir, "w.wtns"))
	require.Equal(t, exitBadInput, code)
	require.Equal(t, "cuzk generate: --r1cs: cannot write "+out+": the directory "+filepath.Dir(out)+" does not exist\n", errs)
}
