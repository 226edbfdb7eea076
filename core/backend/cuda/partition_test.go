package cuda

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend/cpu"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
)

// TestBenchPartition times whole partitions of the synthetic PoRep-shaped
// circuit (CUZK_CUDA_PARTITION=24,26 lists the sizes as powers of two;
// CUZK_CUDA_PARTITION_CPU=24 the sizes also proved on the CPU backend):
// synthesis (the mat-vec, on the host's cores), then assignment to proof on
// the GPU with the parameter points resident (the first run uploads them
// and is reported apart), for 3% and 20% dense (non-boolean) constraints
// (CUZK_CUDA_PARTITION_DENSE). CUZK_CUDA_PARTITION_KEY=setup replaces the
// tiled key by a development setup, and the GPU proofs are then verified.
// CUZK_CUDA_PARTITION_CAP_GIB=23 gives the kernel library a device-memory
// cap (what the engine gives it under gpus.max_device_memory = "24GiB"),
// so that the streamed sets' MSMs show in CUZK_CUDA_PROFILE's phases.
func TestBenchPartition(t *testing.T) {
	env := os.Getenv("CUZK_CUDA_PARTITION")
	if env == "" {
		t.Skip("CUZK_CUDA_PARTITION not set")
	}
	cpuSizes := map[int]bool{}
	for _, f := range strings.Split(os.Getenv("CUZK_CUDA_PARTITION_CPU"), ",") {
		if k, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			cpuSizes[k] = true
		}
	}
	o := benchOptions()
	if gib, err := strconv.ParseFloat(os.Getenv("CUZK_CUDA_PARTITION_CAP_GIB"), 64); err == nil && gib > 0 {
		o.MaxDeviceMemory = uint64(gib * (1 << 30))
		fmt.Printf("\nkernel library capped at %.2f GiB of device memory\n", gib)
	}
	be := gpuWith(t, o)
	defer be.Close()
	plan := groth16.NewPlan(groth16.Plan{Device: be, CPU: &cpu.Backend{}, DevicePrep: os.Getenv("CUZK_CUDA_DEVICE_PREP") != "0", G2OnGPU: true})
	prep := "host"
	if plan.DevicePrep {
		prep = "device"
	}
	fmt.Printf("\nprep on the %s (CUZK_CUDA_DEVICE_PREP); a, b, c and aux in page-locked buffers\n", prep)
	fmt.Printf("\n| partition | non-boolean aux | synthesis (ms) | GPU first run, with SRS upload (ms) | GPU assignment→proof (ms, median of 3) | GPU stages (ms) | CPU %d cores (ms) | ratio | GPU proof = CPU proof |\n|---|---:|---:|---:|---:|---|---:|---:|---|\n", runtime.GOMAXPROCS(0))
	for _, f := range strings.Split(env, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		require.NoError(t, err)
		for _, dense := range denseFractions(t) {
			cs, w, err := synthetic.Generate(synthetic.Spec{Constraints: 1 << k, DenseFraction: dense, Seed: 3})
			require.NoError(t, err)
			// a tiled benchmark key (synthetic.TiledKey): a development setup
			// at 2^24 rows costs far more than the bench, and the MSMs cost
			// the same for any valid points; its proofs do not verify, so the
			// GPU's proof is checked against the CPU backend's under it
			pk := synthetic.TiledKey(cs, 11)
			require.NoError(t, groth16.CheckKey(pk, cs))
			realKey := os.Getenv("CUZK_CUDA_PARTITION_KEY") == "setup"
			if realKey { // a development setup (~1 min at 2^24 on 16 cores): proofs then verify
				pk, err = groth16.Setup(cs, 5)
				require.NoError(t, err)
			}
			n := cs.DomainSize()
			nonBool := 0
			for i := range w.Aux {
				if !w.Aux[i].IsZero() && !w.Aux[i].IsOne() {
					nonBool++
				}
			}
			a, b, c := make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n)
			start := time.Now()
			require.NoError(t, cs.Eval(w, a, b, c, r1cs.EvalOptions{}))
			synth := time.Since(start)
			var r, s fr.Element
			r.SetUint64(17)
			s.SetUint64(19)
			// a, b, c and aux live in page-locked buffers, as the engine's
			// pooled ones do on a GPU (aux copied there during synthesis)
			bufs := [3][]fr.Element{pinnedBuffer(t, be, n), pinnedBuffer(t, be, n), pinnedBuffer(t, be, n)}
			aux := pinnedBuffer(t, be, len(w.Aux))
			copy(aux, w.Aux)
			prove := func(opt groth16.Options) (*params.Proof, *groth16.Report, time.Duration) {
				copy(bufs[0], a)
				copy(bufs[1], b)
				copy(bufs[2], c)
				asg := &groth16.Assignment{A: bufs[0], B: bufs[1], C: bufs[2], Inputs: w.Inputs, Aux: aux, Density: &cs.Density}
				opt.R, opt.S = &r, &s
				start := time.Now()
				proof, rep, err := groth16.ProveAssignment(pk, asg, opt)
				require.NoError(t, err)
				return proof, rep, time.Since(start)
			}
			gpuProof, _, first := prove(groth16.Options{Plan: plan})
			if realKey {
				require.NoError(t, groth16.Verify(&pk.VerifyingKey, gpuProof, w.Inputs[1:]), "2^%d dense %.2f: the GPU proof verifies", k, dense)
			}
			var runs []time.Duration
			var rep *groth16.Report
			for i := 0; i < 3; i++ {
				_, r, d := prove(groth16.Options{Plan: plan})
				runs = append(runs, d)
				if i == 0 {
					rep = r
				}
			}
			sort.Slice(runs, func(i, j int) bool { return runs[i] < runs[j] })
			var stages []string
			for _, st := range rep.Stages {
				stages = append(stages, fmt.Sprintf("%s %.0f", st.Name, ms(st.Duration)))
			}
			cpuCol, equal := "— | —", "not run"
			if cpuSizes[k] {
				cpuProof, _, d := prove(groth16.Options{})
				cpuCol = fmt.Sprintf("%.0f | %.1f×", ms(d), ms(d)/ms(runs[1]))
				require.Equal(t, cpuProof.Bytes(), gpuProof.Bytes(), "2^%d dense %.2f: GPU and CPU proofs differ", k, dense)
				equal = "yes"
			}
			fmt.Printf("| 2^%d | %.1f%% | %.0f | %.0f | %.0f | %s | %s | %s |\n", k, 100*float64(nonBool)/float64(len(w.Aux)),
				ms(synth), ms(first), ms(runs[1]), strings.Join(stages, ", "), cpuCol, equal)
			be.Close() // free this circuit's resident points before the next
		}
	}
}

// denseFractions are the shares of dense constraints to bench
// (CUZK_CUDA_PARTITION_DENSE, default 0.03,0.2: ~3% and ~20% non-boolean
// aux values).
func denseFractions(t *testing.T) []float64 {
	env := os.Getenv("CUZK_CUDA_PARTITION_DENSE")
	if env == "" {
		return []float64{0.03, 0.2}
	}
	var out []float64
	for _, f := range strings.Split(env, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		require.NoError(t, err)
		out = append(out, v)
	}
	return out
}

// pinnedBuffer returns n elements in an anonymous mapping page-locked for
// the GPU (as the engine's pool makes them), released when the test ends.
func pinnedBuffer(t testing.TB, be *Backend, n int) []fr.Element {
	size := n * int(unsafe.Sizeof(fr.Element{}))
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	require.NoError(t, err)
	buf := unsafe.Slice((*fr.Element)(unsafe.Pointer(&mem[0])), n)
	require.NoError(t, be.Pin(buf))
	t.Cleanup(func() {
		require.NoError(t, be.Unpin(buf))
		require.NoError(t, syscall.Munmap(mem))
	})
	return buf
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
