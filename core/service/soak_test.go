package service

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend/cpu"
	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
)

// rss returns the process's resident set in bytes, after a collection that
// hands freed heap back to the system (so that RSS follows what is live).
func rss(t *testing.T) int64 {
	runtime.GC()
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skipf("no /proc/self/statm: %v", err)
	}
	f := strings.Fields(string(b))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	require.NoError(t, err)
	return pages * int64(os.Getpagesize())
}

// soakRSSGrowth is the most RSS may grow after warm-up: a few MB of
// allocator and runtime noise (measured: +0.1 to +0.4 MB). Keeping each
// ended job with its request, as the engine once did for its last 4,096
// jobs, grew RSS from 20.0 to 37.8 MB over this test's 2,400 proofs after
// warm-up.
const soakRSSGrowth = 4 << 20

// soakClients is how many callers each path has at once; with as many CPU
// workers and synthesis slots, the engine's pipeline stays full.
const soakClients = 4

// soakDevices single-threaded CPU devices prove side by side: a proof this
// small is a few milliseconds of work, which one device's interlock would
// serialize.
const soakDevices = 4

const soakConfig = "[gpus]\nworkers_per_device = 2\n[synthesis]\nmax_parallel = 8\nthreads = 1\nqueue_depth = 8\n"

// cpuDevice is a CPU backend under a name of its own (the engine labels
// its metrics by device name).
type cpuDevice struct {
	cpu.Backend
	name string
}

func (d *cpuDevice) Name() string { return d.name }

// TestSoakRSSIsFlat proves thousands of small proofs through the three
// ways a host asks for them (Prove, Submit then Await, StartAssignments then
// Finalize), each with freshly allocated inputs as the C ABI hands them
// over, and fails if the resident set grows past warm-up: an ended job must
// keep nothing of its request, and an awaited one nothing at all.
// CUZK_SOAK=1 runs ten times as many.
func TestSoakRSSIsFlat(t *testing.T) {
	perPath, warmup := 1000, 200
	if os.Getenv("CUZK_SOAK") == "1" {
		perPath = 10000
	}
	if testing.Short() {
		perPath, warmup = 150, 50
	}
	dir := t.TempDir()
	cs, w, err := synthetic.Generate(synthetic.Spec{Constraints: 1 << 6, DenseFraction: 0.3, Seed: 7})
	require.NoError(t, err)
	pk, err := groth16.Setup(cs, 5)
	require.NoError(t, err)
	path := filepath.Join(dir, "soak.params")
	require.NoError(t, pk.WriteFile(path))

	s := New(nil, config.CUDASearch{})
	defer s.Close()
	for i := range soakDevices {
		s.devices = append(s.devices, &cpuDevice{Backend: cpu.Backend{NbTasks: 1}, name: fmt.Sprintf("cpu%d", i)})
	}
	require.NoError(t, s.Configure(soakConfig))
	require.NoError(t, s.RegisterSystem("c", cs))
	require.NoError(t, s.LoadParams("c", path, true))
	h, err := s.OpenSRS(path, true)
	require.NoError(t, err)
	defer s.DropSRS(h)
	public := [][]fr.Element{w.Inputs[1:]}

	// fresh copies, as the C layer makes of the host's buffers
	witness := func() *r1cs.Witness {
		return &r1cs.Witness{Inputs: append([]fr.Element(nil), w.Inputs...), Aux: append([]fr.Element(nil), w.Aux...)}
	}
	rows := cs.Rows()
	n := cs.DomainSize()
	assignment := func() *groth16.Assignment {
		x := witness()
		a, b, c := make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n)
		require.NoError(t, cs.Eval(x, a, b, c, r1cs.EvalOptions{}))
		return &groth16.Assignment{A: a[:rows], B: b[:rows], C: c[:rows], Inputs: x.Inputs, Aux: x.Aux, Density: &cs.Density}
	}

	// one proof by path k; every 50th is verified
	prove := func(k, i int) {
		var proofs []byte
		switch k {
		case 0:
			res, err := s.Prove(Request{CircuitID: "c", Witnesses: []*r1cs.Witness{witness()}})
			require.NoError(t, err)
			proofs = res.Proofs
		case 1:
			x := witness()
			job, err := s.Submit(Request{CircuitID: "c", Partitions: 1,
				WitnessFunc: func(int) (*r1cs.Witness, error) { return x, nil }})
			require.NoError(t, err)
			res, err := s.Await(job, 0)
			require.NoError(t, err)
			proofs = res.Proofs
		case 2:
			r, sv := []fr.Element{fr.NewElement(uint64(i) + 3)}, []fr.Element{fr.NewElement(uint64(i) + 5)}
			p, err := s.StartAssignments(h, []*groth16.Assignment{assignment()}, r, sv, nil, -1)
			require.NoError(t, err)
			ps, err := p.Finalize()
			require.NoError(t, err)
			proofs, err = CompressProofs(ps)
			require.NoError(t, err)
		}
		if i%50 == 0 {
			require.NoError(t, s.Verify("c", proofs, public), "path %d, proof %d", k, i)
		}
	}
	// the three paths side by side, so that the engine's pipeline is busy
	run := func(from, to int) {
		var wg sync.WaitGroup
		for k := range 3 {
			for g := range soakClients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := from + g; i < to; i += soakClients {
						prove(k, i)
					}
				}()
			}
		}
		wg.Wait()
	}

	run(0, warmup)
	before := rss(t)
	run(warmup, perPath)
	after := rss(t)
	t.Logf("%d proofs: RSS %.1f MB after %d, %.1f MB at the end (%+.1f MB)", 3*perPath,
		float64(before)/1e6, 3*warmup, float64(after)/1e6, float64(after-before)/1e6)
	if raceEnabled {
		t.Skip("RSS is not measured under the race detector")
	}
	require.Less(t, after-before, int64(soakRSSGrowth), "RSS grew past warm-up")
}
