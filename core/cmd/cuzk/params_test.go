package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/internal/paramtest"
	"github.com/cuzk/cuzk/core/params"
)

// TestMain keeps what the commands write by default into the platform
// cache directory (the validation record, the parameter cache) out of the
// user's home.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cuzk-cli-test")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	os.Setenv("HOME", dir)
	os.Unsetenv(cacheMaxEnv)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Every command that reads parameters validates them the same way: a file
// with one L point off the subgroup is refused by prove and bench (dump-
// assignment reads only the section counts), also after setup recorded a valid file at that path,
// unless the flag, the configuration or the record trusts it.
func TestParamsValidationInEveryCommand(t *testing.T) {
	p := generated(t)
	var code int
	var errs string
	cacheDir, err := os.UserCacheDir()
	require.NoError(t, err)
	rec := params.OpenRecord(filepath.Join(cacheDir, "cuzk"))
	require.FileExists(t, rec.Path(), "setup records what it wrote")

	good, err := os.ReadFile(p("c.params"))
	require.NoError(t, err)
	pk, err := params.ReadProvingKey(p("c.params"), params.Options{SkipSubgroupCheck: true})
	require.NoError(t, err)
	bad := append([]byte(nil), good...)
	off := paramtest.OffSubgroupG1()
	raw := off.RawBytes()
	counts := paramtest.Counts{IC: len(pk.IC), H: len(pk.H), L: len(pk.L), A: len(pk.A), BG1: len(pk.BG1)}
	copy(bad[paramtest.Offset(counts, "l", 1):], raw[:])
	require.NoError(t, os.WriteFile(p("c.params"), bad, 0o644))
	require.NoError(t, os.WriteFile(p("skip.toml"), []byte("[srs]\nskip_subgroup_check = true\n"), 0o644))
	require.NoError(t, os.WriteFile(p("rec.toml"), []byte("[srs]\nvalidation_record_dir = '"+p("rec")+"'\n"), 0o644))

	commands := map[string][]string{
		"prove": {"prove", "--params", p("c.params"), "--r1cs", p("c.r1cs"), "--wtns", p("w.wtns"), "--out", p("proof.bin")},
		"bench": {"bench", "--params", p("c.params"), "--r1cs", p("c.r1cs"), "--wtns", p("w.wtns"), "--proofs", "1", "--partitions", "1"},
	}
	for name, args := range commands {
		t.Run(name, func(t *testing.T) {
			for range 2 {
				code, _, errs := cli(t, args...)
				require.Equal(t, exitBadInput, code)
				require.Contains(t, errs, "params: l[1]: point not in the prime-order subgroup")
			}
			code, _, errs := cli(t, append(args, "--config", p("rec.toml"))...)
			require.Equal(t, exitBadInput, code)
			require.Contains(t, errs, "not in the prime-order subgroup")
			// Trusted: the subgroup check does not run (the proof then fails
			// to verify, which prove and bench report).
			for _, trust := range [][]string{{"--trusted-params"}, {"--config", p("skip.toml")}} {
				_, _, errs := cli(t, append(args, trust...)...)
				require.NotContains(t, errs, "subgroup")
			}
		})
	}
	// Contents in the record load without the subgroup check: the record
	// is consulted (here forged on purpose for the bad file).
	require.NoError(t, params.OpenRecord(p("rec")).AddFile(p("c.params"), params.ValidationChecked, 0))
	_, _, errs = cli(t, append(commands["prove"], "--config", p("rec.toml"))...)
	require.NotContains(t, errs, "subgroup", "the record vouched for the file")

	// The valid file again: loads, and the proof verifies.
	require.NoError(t, os.WriteFile(p("c.params"), good, 0o644))
	code, _, errs = cli(t, commands["prove"]...)
	require.Equal(t, 0, code, errs)
}
