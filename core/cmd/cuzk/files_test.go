package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/internal/filetest"
	"github.com/cuzk/cuzk/core/internal/r1cstest"
)

// proved is generated plus proof.bin and public.json.
func proved(t *testing.T) func(name string) string {
	p := generated(t)
	code, _, errs := cli(t, "prove", "--params", p("c.params"), "--r1cs", p("c.r1cs"), "--wtns", p("w.wtns"),
		"--out", p("proof.bin"), "--public", p("public.json"))
	require.Equal(t, 0, code, errs)
	return p
}

// cliWithin runs the command line under filetest.Promptly.
func cliWithin(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var code int
	var errs string
	filetest.Promptly(t, strings.Join(args, " "), func() error {
		code, _, errs = cli(t, args...)
		return nil
	})
	return code, errs
}

// TestFIFOInputsRefused gives a FIFO as each input path of each command:
// each is refused at once as bad input (an open for reading used to block
// until a writer came, forever).
func TestFIFOInputsRefused(t *testing.T) {
	p := proved(t)
	fifo := p("fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	require.NoError(t, os.WriteFile(p("none.toml"), nil, 0o644))
	prove := []string{"--params", p("c.params"), "--r1cs", p("c.r1cs"), "--wtns", p("w.wtns")}
	check := []string{"--vk", p("c.params"), "--proof", p("proof.bin"), "--public", p("public.json")}
	for _, c := range []struct {
		cmd   string
		flags []string
		extra []string
	}{
		{"setup", []string{"--r1cs", p("c.r1cs"), "--config", p("none.toml")}, []string{"--out", p("x.params")}},
		{"prove", append(append([]string{}, prove...), "--config", p("none.toml")), []string{"--out", p("x.bin")}},
		{"dump-assignment", prove, []string{"--out", p("dump")}},
		{"verify", check, nil},
		{"export-snarkjs", check, []string{"--out", p("js")}},
		{"bench", append(append([]string{}, prove...), "--config", p("none.toml")), []string{"--proofs", "1", "--cache", p("cache")}},
	} {
		for i := 0; i < len(c.flags); i += 2 {
			args := append([]string{c.cmd}, c.flags...)
			args[1+i+1] = fifo
			args = append(args, c.extra...)
			code, errs := cliWithin(t, args...)
			require.Equal(t, exitBadInput, code, "%v: %s", args, errs)
			require.Contains(t, errs, "not a regular file", "%v", args)
		}
	}
}

// TestSetupHugeHeader: setup on a 264-byte file whose header claims
// 2^31 - 1 wires, circom's format and cuzk's, is bad input found at once
// (it used to die of memory asking for a 64 GiB block).
func TestSetupHugeHeader(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{
		"huge.r1cs": r1cstest.HugeCircomHeader(),
		"huge.cuzk": r1cstest.HugeCuzkHeader(r1cstest.HugeCount-1, 0),
	}
	for name, data := range files {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, data, 0o644))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		code, errs := cliWithin(t, "setup", "--r1cs", path, "--out", filepath.Join(dir, name+".params"))
		runtime.ReadMemStats(&after)
		require.Equal(t, exitBadInput, code, errs)
		require.Contains(t, errs, "variables declared")
		require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20))
	}
}

// TestOutputsReplaceLinks: a symbolic link at an output path is replaced
// by the new file; the file it pointed to is untouched. No temporary file
// is left beside the outputs.
func TestOutputsReplaceLinks(t *testing.T) {
	p := proved(t)
	target := filepath.Join(t.TempDir(), "precious")
	require.NoError(t, os.WriteFile(target, []byte("keep me"), 0o644))
	require.NoError(t, os.MkdirAll(p("js"), 0o755))
	outs := map[string][]string{
		p("link.bin"):      {"prove", "--params", p("c.params"), "--r1cs", p("c.r1cs"), "--wtns", p("w.wtns"), "--out", p("link.bin"), "--public", p("link.json")},
		p("link.json"):     nil, // written by the prove above
		p("js/proof.json"): {"export-snarkjs", "--vk", p("c.params"), "--proof", p("proof.bin"), "--public", p("public.json"), "--out", p("js")},
		p("link.params"):   {"setup", "--r1cs", p("c.r1cs"), "--out", p("link.params")},
		p("dump/a.bin"):    {"dump-assignment", "--params", p("c.params"), "--r1cs", p("c.r1cs"), "--wtns", p("w.wtns"), "--out", p("dump")},
		p("gen.r1cs"):      {"generate", "--constraints", "64", "--r1cs", p("gen.r1cs"), "--wtns", p("gen.wtns")},
	}
	require.NoError(t, os.MkdirAll(p("dump"), 0o755))
	for link := range outs {
		require.NoError(t, os.Symlink(target, link))
	}
	for _, args := range outs {
		if args == nil {
			continue
		}
		code, errs := cliWithin(t, args...)
		require.Equal(t, 0, code, "%v: %s", args, errs)
	}
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	require.Equal(t, "keep me", string(got))
	for link := range outs {
		st, err := os.Lstat(link)
		require.NoError(t, err)
		require.True(t, st.Mode().IsRegular(), "%s is still a link", link)
	}
	for _, dir := range []string{p(""), p("js"), p("dump")} {
		es, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range es {
			require.NotContains(t, e.Name(), "tmp", "temporary left in %s", dir)
		}
	}
}

// TestSetupCleansStaleTemporaries: temporaries of a killed setup (this
// version's and the previous one's pattern) are removed by the next write
// of the same file; a fresh one, maybe a live writer's, is kept.
func TestSetupCleansStaleTemporaries(t *testing.T) {
	p := generated(t)
	old := time.Now().Add(-time.Hour)
	for _, name := range []string{".c.params.cuzk-tmp-1", "c.params.tmp2", ".c.params.cuzk-tmp-3"} {
		require.NoError(t, os.WriteFile(p(name), []byte("partial"), 0o600))
		if !strings.HasSuffix(name, "3") {
			require.NoError(t, os.Chtimes(p(name), old, old))
		}
	}
	code, _, errs := cli(t, "setup", "--r1cs", p("c.r1cs"), "--out", p("c.params"))
	require.Equal(t, 0, code, errs)
	for name, kept := range map[string]bool{".c.params.cuzk-tmp-1": false, "c.params.tmp2": false, ".c.params.cuzk-tmp-3": true} {
		_, err := os.Stat(p(name))
		require.Equal(t, kept, err == nil, name)
	}
}
