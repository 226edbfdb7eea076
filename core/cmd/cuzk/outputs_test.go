package main

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// digests returns the SHA-256 of every regular file under dir, by path.
func digests(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	require.NoError(t, filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || !info.Mode().IsRegular() {
			return err
		}
		data, err := os.ReadFile(path)
		if err == nil {
			out[path] = sha256.Sum256(data)
		}
		return err
	}))
	return out
}

// TestOutputsNeverDestroyInputs gives each command that writes files an
// output naming one of its inputs (the same path, a symbolic link to it,
// a hard link to it, or a path a link of the input points to), another of
// its outputs, a directory, a path in a missing directory: each is refused
// as bad input, nothing in the directory changes and no file appears.
// Each case also has an input that would fail to load (garbage.bin as
// the witness or verifying key, where the command reads one): the output
// error, not that one, proves the outputs are checked before any work.
func TestOutputsNeverDestroyInputs(t *testing.T) {
	p := proved(t)
	require.NoError(t, os.WriteFile(p("garbage.bin"), []byte("not a witness, not a key"), 0o644))
	require.NoError(t, os.WriteFile(p("none.toml"), nil, 0o644))
	require.NoError(t, os.Symlink(p("c.params"), p("link.params")))
	require.NoError(t, os.Link(p("c.params"), p("hard.params")))
	require.NoError(t, os.Symlink(p("w.wtns"), p("link.wtns")))
	require.NoError(t, os.MkdirAll(p("js"), 0o755))
	require.NoError(t, os.WriteFile(p("js/public.json"), []byte(`["1"]`), 0o644))
	require.NoError(t, os.MkdirAll(p("adir"), 0o755))
	require.NoError(t, os.MkdirAll(p("dump/a.bin"), 0o755))

	prove := func(out, public, wtns string) []string {
		args := []string{"prove", "--params", p("c.params"), "--r1cs", p("c.r1cs"), "--wtns", wtns, "--out", out, "--config", p("none.toml")}
		if public != "" {
			args = append(args, "--public", public)
		}
		return args
	}
	garbage := p("garbage.bin")
	for _, c := range []struct {
		name string
		args []string
		msg  string
	}{
		{"prove --public is --params", prove(p("x.bin"), p("c.params"), garbage), "--public: " + p("c.params") + " is the --params file"},
		{"prove --out is --params", prove(p("c.params"), "", garbage), "is the --params file"},
		{"prove --out is --wtns", prove(p("w.wtns"), "", p("w.wtns")), "is the --wtns file"},
		{"prove --out is --config", prove(p("none.toml"), "", garbage), "is the --config file"},
		{"prove --out links to --params", prove(p("link.params"), "", garbage), "is the --params file"},
		{"prove --out is a hard link of --params", prove(p("hard.params"), "", garbage), "is the --params file"},
		{"prove --wtns links to --out", prove(p("w.wtns"), "", p("link.wtns")), "is the --wtns file"},
		{"prove --out relative to the same file", prove(p("sub/../c.params"), "", garbage), "is the --params file"},
		{"prove --out is --public", prove(p("x.bin"), p("x.bin"), garbage), "--public: " + p("x.bin") + " is also written as --out"},
		{"prove --out a directory", prove(p("adir"), "", garbage), "is a directory"},
		{"prove --out in a missing directory", prove(p("missing/x.bin"), "", garbage), "the directory " + p("missing") + " does not exist"},
		{"setup --out is --r1cs", []string{"setup", "--r1cs", p("c.r1cs"), "--out", p("c.r1cs")}, "is the --r1cs file"},
		{"setup --out is --config", []string{"setup", "--r1cs", p("c.r1cs"), "--out", p("none.toml"), "--config", p("none.toml")}, "is the --config file"},
		{"setup --out a directory", []string{"setup", "--r1cs", garbage, "--out", p("adir")}, "is a directory"},
		{"setup --out in a missing directory", []string{"setup", "--r1cs", garbage, "--out", p("missing/c.params")}, "does not exist"},
		{"export-vk --out is --params", []string{"export-vk", "--params", p("c.params"), "--out", p("link.params")}, "is the --params file"},
		{"export-vk --out a directory", []string{"export-vk", "--params", garbage, "--out", p("adir")}, "is a directory"},
		{"export-snarkjs writes its --public", []string{"export-snarkjs", "--vk", garbage, "--proof", p("proof.bin"), "--public", p("js/public.json"), "--out", p("js")}, "is the --public file"},
		{"export-snarkjs --out a file", []string{"export-snarkjs", "--vk", garbage, "--proof", p("proof.bin"), "--public", p("public.json"), "--out", p("proof.bin")}, "is a file; --out takes a directory"},
		{"export-snarkjs --out under a file", []string{"export-snarkjs", "--vk", garbage, "--proof", p("proof.bin"), "--public", p("public.json"), "--out", p("proof.bin/js")}, "cannot be made"},
		{"dump-assignment writes a directory", []string{"dump-assignment", "--params", p("c.params"), "--r1cs", p("c.r1cs"), "--wtns", garbage, "--out", p("dump")}, "dump/a.bin is a directory"},
		{"dump-assignment --out a file", []string{"dump-assignment", "--params", p("c.params"), "--r1cs", p("c.r1cs"), "--wtns", garbage, "--out", p("c.params")}, "is a file"},
		{"generate --r1cs is --wtns", []string{"generate", "--r1cs", p("g.bin"), "--wtns", p("g.bin")}, "is also written as --r1cs"},
		{"generate --r1cs in a missing directory", []string{"generate", "--r1cs", p("missing/g.r1cs"), "--wtns", p("g.wtns")}, "does not exist"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := digests(t, p(""))
			code, errs := cliWithin(t, c.args...)
			require.Equal(t, exitBadInput, code, errs)
			require.Contains(t, errs, c.msg)
			require.Equal(t, before, digests(t, p("")), "a file changed or appeared")
			_, err := os.Stat(p("missing"))
			require.True(t, os.IsNotExist(err))
		})
	}

	// dump-assignment's inputs inside its output directory: refused too.
	require.NoError(t, os.MkdirAll(p("d2"), 0o755))
	data, err := os.ReadFile(p("w.wtns"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p("d2/aux.bin"), data, 0o644))
	code, errs := cliWithin(t, "dump-assignment", "--params", p("c.params"), "--r1cs", p("c.r1cs"), "--wtns", p("d2/aux.bin"), "--out", p("d2"))
	require.Equal(t, exitBadInput, code, errs)
	require.Contains(t, errs, "d2/aux.bin is the --wtns file")
	got, err := os.ReadFile(p("d2/aux.bin"))
	require.NoError(t, err)
	require.Equal(t, data, got)

	// The same commands with fresh outputs work (the checks refuse only
	// what they should): prove beside its inputs, export-snarkjs into a
	// directory it makes.
	code, errs = cliWithin(t, prove(p("fresh.bin"), p("fresh.json"), p("w.wtns"))...)
	require.Equal(t, 0, code, errs)
	code, errs = cliWithin(t, "export-snarkjs", "--vk", p("c.params"), "--proof", p("proof.bin"), "--public", p("public.json"), "--out", p("new/js"))
	require.Equal(t, 0, code, errs)
}

// TestOutputDirectoryNotWritable: an output in a directory the user may
// not write is refused before the work (root may write anywhere: skipped).
func TestOutputDirectoryNotWritable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes in any directory")
	}
	p := generated(t)
	require.NoError(t, os.MkdirAll(p("ro"), 0o555))
	code, errs := cliWithin(t, "setup", "--r1cs", p("c.r1cs"), "--out", p("ro/c.params"))
	require.Equal(t, exitBadInput, code, errs)
	require.Contains(t, errs, "is not writable")
}
