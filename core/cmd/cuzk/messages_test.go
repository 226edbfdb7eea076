package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// goWords matches what a Go decoder's message leaks: Go type and package
// names.
var goWords = regexp.MustCompile(`Go (value|struct)|interface \{\}|\bint64\b|\bfloat64\b|\[\][a-z]+|map\[|config\.[A-Z]|snarkjs\.[A-Z]|\*[a-z]+\.[A-Z]`)

// TestMessagesNameTheFile gives every JSON input and --config documents of
// the wrong shape, and each input flag a file of no known kind: each is bad
// input (2), the message names the flag and the file, and no Go type name
// appears in it.
func TestMessagesNameTheFile(t *testing.T) {
	p := proved(t)
	docs := map[string]string{
		"object.json":  `{"a": 1, "b": [2]}`,
		"numbers.json": `[1, 2]`,
		"nested.json":  `[["1"]]`,
		"pi_a.json":    `{"pi_a": 5, "protocol": "groth16", "curve": "bls12381"}`,
		"pi_b.json":    `{"pi_a": ["1", "2", "1"], "pi_b": [1], "pi_c": ["1", "2", "1"], "protocol": "groth16", "curve": "bls12381"}`,
		"vk.json":      `{"protocol": "groth16", "curve": "bls12381", "nPublic": 2, "vk_alpha_1": {"x": 1}}`,
		"npublic.json": `{"protocol": "groth16", "nPublic": "two"}`,
		"cut.json":     `{"pi_a": [`,
		"random.bin":   "\x8f\x17\x00\xfe random bytes of no kind",
	}
	configs := map[string]string{
		"type.toml":   "[srs]\nvalidation_record_dir = 5\n",
		"table.toml":  "srs = 5\n",
		"array.toml":  "[gpus]\ndevices = \"all\"\n",
		"bool.toml":   "[srs]\nskip_subgroup_check = \"yes\"\n",
		"size.toml":   "[memory]\nbudget = true\n",
		"shape.json":  `{"srs": {"validation_record_dir": [1]}}`,
		"array.json":  `[{"srs": {}}]`,
		"number.json": `{"srs": 5}`,
	}
	for name, data := range docs {
		require.NoError(t, os.WriteFile(p(name), []byte(data), 0o644))
	}
	for name, data := range configs {
		require.NoError(t, os.WriteFile(p(name), []byte(data), 0o644))
	}
	verify := map[string]string{"--vk": p("c.params"), "--proof": p("proof.bin"), "--public": p("public.json")}
	prove := map[string]string{"--params": p("c.params"), "--r1cs": p("c.r1cs"), "--wtns": p("w.wtns")}
	run := func(cmd string, flags map[string]string, flag, file string) {
		args := []string{cmd}
		for f, v := range flags {
			if f == flag {
				v = p(file)
			}
			args = append(args, f, v)
		}
		if cmd == "prove" {
			args = append(args, "--out", p("x.bin"))
			if flag == "--config" {
				args = append(args, "--config", p(file))
			}
		}
		code, errs := cliWithin(t, args...)
		require.Equal(t, exitBadInput, code, "%v: %s", args, errs)
		msg := strings.TrimPrefix(strings.TrimSpace(errs), "cuzk "+cmd+": ")
		require.True(t, strings.HasPrefix(msg, flag+": "), "%s %s: the message names the flag: %s", flag, file, msg)
		require.Contains(t, msg, file, "%s: the message names the file", flag)
		require.False(t, goWords.MatchString(msg), "%s %s: Go's words in %q", flag, file, msg)
	}
	for name := range docs {
		for flag := range verify {
			run("verify", verify, flag, name)
		}
		for flag := range prove {
			run("prove", prove, flag, name)
		}
	}
	for name := range configs {
		run("prove", prove, "--config", name)
	}
}
