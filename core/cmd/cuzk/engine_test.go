package main

import (
	"os"
	"strings"
	"sync/atomic"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/backend/cpu"
	"github.com/cuzk/cuzk/core/params"
)

// TestProveWhereTheLibraryProves: prove and demo go through the engine
// with the library's configuration keys and say where the proof was made
// and why. On this machine (no GPU, no libcuzk_cuda.so) the CPU, with the
// CUDA library search's reason; gpus.cuda_lib is read as the library
// reads it (the reason names the path given) and gpus.required refuses to
// fall back; a device standing for a GPU proves when the engine has one.
// Each proof is checked by verify, apart from the command's own check.
func TestProveWhereTheLibraryProves(t *testing.T) {
	p := generated(t)
	prove := func(extra ...string) (int, string, string) {
		args := append([]string{"prove", "--params", p("c.params"), "--r1cs", p("c.r1cs"), "--wtns", p("w.wtns"),
			"--out", p("proof.bin"), "--public", p("public.json")}, extra...)
		return cli(t, args...)
	}
	verified := func() {
		code, out, errs := cli(t, "verify", "--vk", p("c.params"), "--proof", p("proof.bin"), "--public", p("public.json"))
		require.Equal(t, 0, code, errs)
		require.Equal(t, "valid\n", out)
	}

	code, out, errs := prove()
	require.Equal(t, 0, code, errs)
	require.Regexp(t, `(?m)^proved on the CPU: .*libcuzk_cuda\.so.*looked in .*\n`, out)
	verified()

	missing := p("nowhere/libcuzk_cuda.so")
	require.NoError(t, os.WriteFile(p("lib.toml"), []byte("[gpus]\ncuda_lib = '"+missing+"'\n"), 0o644))
	code, out, errs = prove("--config", p("lib.toml"))
	require.Equal(t, 0, code, errs)
	require.Regexp(t, `(?m)^proved on the CPU: .*`+strings.ReplaceAll(missing, ".", `\.`), out)
	verified()

	require.NoError(t, os.WriteFile(p("required.toml"), []byte("[gpus]\nrequired = true\n"), 0o644))
	code, _, errs = prove("--config", p("required.toml"))
	require.Equal(t, exitBadInput, code)
	require.Contains(t, errs, "gpus.required is set but no GPU can be used")

	engineDevices = []backend.Backend{&standIn{Backend: &cpu.Backend{}}}
	t.Cleanup(func() { engineDevices = nil })
	require.NoError(t, os.Remove(p("proof.bin")))
	code, out, errs = prove()
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "proved on gpu-stand-in\n")
	verified()
	code, out, errs = cli(t, "demo", "--constraints", "256", "--cache", p("cache"))
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "proved on gpu-stand-in\n")
	require.Contains(t, out, "proof verified")
}

// standIn is the CPU backend standing for a GPU the engine was given.
type standIn struct{ *cpu.Backend }

func (standIn) Name() string { return "gpu-stand-in" }

// TestProveRefusesAKeyThatDoesNotBelong: a parameter file whose verifying
// key does not belong to its proving key (alpha_g1 and beta_g1 swapped)
// gives proofs the engine does not verify: bad input naming the file
// (exit 2), nothing written; never "an invalid proof" (exit 1), which
// verify says of a proof given to it.
func TestProveRefusesAKeyThatDoesNotBelong(t *testing.T) {
	p := generated(t)
	data, err := os.ReadFile(p("c.params"))
	require.NoError(t, err)
	const g1 = 96 // alpha_g1, then beta_g1, uncompressed
	swapped := append(append(append([]byte{}, data[g1:2*g1]...), data[:g1]...), data[2*g1:]...)
	require.NoError(t, os.WriteFile(p("swapped.params"), swapped, 0o644))
	code, _, errs := cli(t, "prove", "--trusted-params", "--params", p("swapped.params"), "--r1cs", p("c.r1cs"), "--wtns", p("w.wtns"), "--out", p("x.bin"))
	require.Equal(t, exitBadInput, code, errs)
	require.Contains(t, errs, "the proof made with "+p("swapped.params")+" does not verify against the same file's verifying key")
	_, err = os.Stat(p("x.bin"))
	require.True(t, os.IsNotExist(err))
}

// TestProveChecksTheKeyOnTheDevice: prove starts the engine before it
// reads the parameter file, so that a device's subgroup checker checks
// the key (the CPU's check of a 2^24 key takes minutes on 16 cores); with
// an empty validation record every point of the file goes through it,
// and the proof is verified.
func TestProveChecksTheKeyOnTheDevice(t *testing.T) {
	p := generated(t)
	chk := &countingChecker{}
	engineDevices = []backend.Backend{&checkingStandIn{standIn{&cpu.Backend{}}, chk}}
	t.Cleanup(func() { engineDevices = nil })
	require.NoError(t, os.WriteFile(p("rec.toml"), []byte("[srs]\nvalidation_record_dir = '"+p("record")+"'\n"), 0o644))
	code, out, errs := cli(t, "prove", "--params", p("c.params"), "--r1cs", p("c.r1cs"), "--wtns", p("w.wtns"),
		"--out", p("proof.bin"), "--public", p("public.json"), "--config", p("rec.toml"))
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "proved on gpu-stand-in\n")
	require.Regexp(t, `validate params .*subgroup check of every point`, out)
	pk, err := params.ReadProvingKey(p("c.params"), params.Options{SkipSubgroupCheck: true})
	require.NoError(t, err)
	g1 := len(pk.A) + len(pk.BG1) + len(pk.H) + len(pk.L)
	require.GreaterOrEqual(t, int(chk.g1.Load()), g1, "the key's G1 points checked by the device")
	require.GreaterOrEqual(t, int(chk.g2.Load()), len(pk.BG2), "the key's G2 points checked by the device")
	code, _, errs = cli(t, "verify", "--vk", p("c.params"), "--proof", p("proof.bin"), "--public", p("public.json"))
	require.Equal(t, 0, code, errs)
}

// checkingStandIn is a stand-in GPU that offers a subgroup checker.
type checkingStandIn struct {
	standIn
	c *countingChecker
}

func (s *checkingStandIn) Capabilities() backend.Capabilities {
	caps := s.standIn.Capabilities()
	caps.Subgroup = s.c
	return caps
}

// countingChecker is the CPU's check, counting the points it was given.
type countingChecker struct{ g1, g2 atomic.Int64 }

func (c *countingChecker) CheckSubgroupG1(points []bls.G1Affine) (int, error) {
	c.g1.Add(int64(len(points)))
	return params.CPUChecker{}.CheckSubgroupG1(points)
}

func (c *countingChecker) CheckSubgroupG2(points []bls.G2Affine) (int, error) {
	c.g2.Add(int64(len(points)))
	return params.CPUChecker{}.CheckSubgroupG2(points)
}
