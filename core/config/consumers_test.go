package config_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/engine"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
)

var (
	fixOnce sync.Once
	fixCS   *r1cs.R1CS
	fixW    *r1cs.Witness
	fixPK   *engine.Circuit
)

func fixture(t *testing.T) (*engine.Circuit, *r1cs.Witness) {
	fixOnce.Do(func() {
		cs, w, err := synthetic.Generate(synthetic.Spec{Constraints: 1 << 8, DenseFraction: 0.5, Seed: 1})
		if err != nil {
			panic(err)
		}
		pk, err := groth16.Setup(cs, 3)
		if err != nil {
			panic(err)
		}
		fixCS, fixW, fixPK = cs, w, &engine.Circuit{ID: "c", CS: cs, PK: pk}
	})
	return fixPK, fixW
}

// With no usable library the engine says where the search looked and
// names gpus.cuda_lib, also when NVML sees a GPU; a file found that is no
// library fails dlopen cleanly (the CPU then proves, or gpus.required
// refuses).
func TestCUDASearchReachesTheEngine(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	h200 := func() ([]backend.GPU, error) { return []backend.GPU{{Index: 0, Name: "NVIDIA H200"}}, nil }
	start := func(search config.CUDASearch, required bool) (string, error) {
		cfg, err := config.Parse("[memory]\nbudget = \"1GiB\"\n")
		require.NoError(t, err)
		cfg.GPUs.Required = required
		search.Resolve(&cfg)
		var log bytes.Buffer
		e, err := engine.New(cfg, engine.Options{DiscoverGPUs: h200, Logger: slog.New(slog.NewTextHandler(&log, nil))})
		if err == nil {
			require.Equal(t, "cpu", e.Status().Devices[0].Kind)
			e.Close()
		}
		return log.String(), err
	}
	log, err := start(config.CUDASearch{Dirs: dirs, Loader: true}, false)
	require.NoError(t, err)
	require.Contains(t, log, "no usable GPU; proving on the CPU backend")
	require.Contains(t, log, "nvml_gpus=1")
	require.Contains(t, log, "gpus.cuda_lib")
	for _, d := range dirs {
		require.Contains(t, log, d)
	}
	require.Contains(t, log, "the dynamic loader's path")

	fake := filepath.Join(dirs[1], config.CUDALibFile)
	require.NoError(t, os.WriteFile(fake, []byte("not an ELF file\n"), 0o755))
	log, err = start(config.CUDASearch{Dirs: dirs, Loader: true}, false)
	require.NoError(t, err)
	require.Contains(t, log, fake)
	require.Contains(t, log, dirs[0], "where it looked before")
	_, err = start(config.CUDASearch{Dirs: dirs}, true)
	require.ErrorContains(t, err, "gpus.required is set but no GPU can be used")
	require.ErrorContains(t, err, fake)
	require.ErrorContains(t, err, "gpus.cuda_lib")
}

// Each numeric key at the ends of its range still gives right answers
// where it is consumed: a proof that verifies for a satisfying witness and
// an error for an unsatisfying one, with verify_proofs = false so that the
// engine's own check cannot hide a wrong proof (throttle.check_rows =
// 2^63−1 once skipped the mat-vec). A value the machine cannot honour (a
// safety margin above its memory) is an error, never a wrong proof.
func TestNumericKeysAtTheirEndsProveRight(t *testing.T) {
	if testing.Short() {
		t.Skip("proves once per key")
	}
	circ, w := fixture(t)
	bad := &r1cs.Witness{Inputs: w.Inputs, Aux: append([]fr.Element(nil), w.Aux...)}
	bad.Aux[len(bad.Aux)/2].SetUint64(12345)
	for _, kv := range []string{
		"throttle.check_rows = 1", "throttle.check_rows = 1073741824",
		"throttle.sleep = \"1s\"",
		"synthesis.threads = 1024", "synthesis.max_parallel = 1024", "synthesis.queue_depth = 0", "synthesis.queue_depth = 1024",
		"gpus.g2_threads = 1024", "gpus.cpu_workers = 256", "gpus.cpu_workers = 1", "gpus.workers_per_device = 16",
		"gpus.devices = [1023]",
		"scheduler.batch_max = 1024", "scheduler.batch_wait = \"1h\"", "scheduler.default_timeout = \"168h\"",
		"dealloc.max_concurrent = 64",
		"memory.budget = \"1024TiB\"", "memory.pool_max = \"1024TiB\"", "memory.pool_max = 1", "memory.safety_margin = \"1024TiB\"", "memory.safety_margin = 0",
	} {
		key, val, _ := strings.Cut(kv, " = ")
		sec, name, _ := strings.Cut(key, ".")
		text := fmt.Sprintf("verify_proofs = false\n[%s]\n%s = %s\n", sec, name, val)
		if sec != "memory" {
			text += "[memory]\nbudget = \"1GiB\"\n"
		}
		cfg, err := config.Parse(text)
		require.NoError(t, err, kv)
		e, err := engine.New(cfg, engine.Options{})
		if err != nil {
			require.ErrorContains(t, err, "memory.safety_margin", kv)
			continue
		}
		proofs, _, err := e.Prove(context.Background(), engine.Request{Circuit: circ, Partitions: []engine.Partition{{Witness: w}}})
		require.NoError(t, err, kv)
		require.NoError(t, groth16.Verify(&circ.PK.VerifyingKey, &proofs[0], w.Inputs[1:]), kv)
		_, _, err = e.Prove(context.Background(), engine.Request{Circuit: circ, Partitions: []engine.Partition{{Witness: bad}}})
		require.ErrorIs(t, err, r1cs.ErrUnsatisfied, kv)
		e.Close()
	}
}
