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

// TestResultsOnStdoutLogsOnStderr runs every command with the most
// verbose log (logging.level = "debug" where it takes --config): stdout
// holds results and no log line, stderr holds the log lines.
func TestResultsOnStdoutLogsOnStderr(t *testing.T) {
	p := proved(t)
	require.NoError(t, os.WriteFile(p("debug.toml"), []byte("[logging]\nlevel = \"debug\"\n"), 0o644))
	cache := p("cache")
	logLine := regexp.MustCompile(`(?m)^time=|level=(DEBUG|INFO|WARN|ERROR)`)
	sawLog := false
	for _, args := range [][]string{
		{"generate", "--constraints", "64", "--r1cs", p("g.r1cs"), "--wtns", p("g.wtns")},
		{"setup", "--r1cs", p("c.r1cs"), "--out", p("s.params"), "--config", p("debug.toml")},
		{"prove", "--params", p("c.params"), "--r1cs", p("c.r1cs"), "--wtns", p("w.wtns"), "--out", p("o.bin"), "--config", p("debug.toml")},
		{"verify", "--vk", p("c.params"), "--proof", p("proof.bin"), "--public", p("public.json")},
		{"export-vk", "--params", p("c.params"), "--out", p("c.vk")},
		{"export-snarkjs", "--vk", p("c.params"), "--proof", p("proof.bin"), "--public", p("public.json"), "--out", p("js")},
		{"dump-assignment", "--params", p("c.params"), "--r1cs", p("c.r1cs"), "--wtns", p("w.wtns"), "--out", p("dump"), "--config", p("debug.toml")},
		{"bench", "--proofs", "1", "--partitions", "1", "--constraints", "128", "--cache", cache, "--config", p("debug.toml")},
		{"demo", "--constraints", "128", "--cache", cache},
		{"info", p("c.params")},
		{"cache", "list", "--cache", cache},
	} {
		code, out, errs := cli(t, args...)
		require.Equal(t, 0, code, "%v: %s", args, errs)
		require.NotEmpty(t, out, "%v: a result on stdout", args)
		require.False(t, logLine.MatchString(out), "%v: a log line on stdout:\n%s", args, out)
		sawLog = sawLog || logLine.MatchString(errs)
	}
	require.True(t, sawLog, "the engine's debug log reached stderr")
}
