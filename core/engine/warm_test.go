package engine

import (
	"sync"
	"testing"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/backend/cpu"
	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/msm"
	"github.com/cuzk/cuzk/core/params"
)

// residentDevice is a CPU backend that keeps point sets "resident" as a
// GPU does: a set is uploaded by WarmG1/WarmG2 or, failing that, by the
// first MSM over it, which then uploads inside the device region (counted
// as cold).
type residentDevice struct {
	cpu.Backend
	mu     sync.Mutex
	warmed map[uintptr]int // set's first point → its length
	cold   []int           // lengths of sets first met by an MSM
	warms  int
}

var _ backend.Warmer = (*residentDevice)(nil)

func (d *residentDevice) Name() string { return "fake-gpu" }

func (d *residentDevice) Capabilities() backend.Capabilities {
	c := d.Backend.Capabilities()
	c.Warm = d
	return c
}

func (d *residentDevice) warm(p unsafe.Pointer, n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n > 0 {
		d.warmed[uintptr(p)] = n
		d.warms++
	}
}

// use records an MSM over a set, and whether it had to upload it.
func (d *residentDevice) use(p unsafe.Pointer, n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if got, ok := d.warmed[uintptr(p)]; !ok || got != n {
		d.cold = append(d.cold, n)
		d.warmed[uintptr(p)] = n
	}
}

func (d *residentDevice) WarmG1(points []bls.G1Affine) error {
	d.warm(unsafe.Pointer(unsafe.SliceData(points)), len(points))
	return nil
}

func (d *residentDevice) WarmG2(points []bls.G2Affine) error {
	d.warm(unsafe.Pointer(unsafe.SliceData(points)), len(points))
	return nil
}

func (d *residentDevice) MSMG1(points []bls.G1Affine, scalars []fr.Element) (bls.G1Jac, msm.Stats, error) {
	d.use(unsafe.Pointer(unsafe.SliceData(points)), len(points))
	return d.Backend.MSMG1(points, scalars)
}

func (d *residentDevice) MSMG2(points []bls.G2Affine, scalars []fr.Element, threads int) (bls.G2Jac, msm.Stats, error) {
	d.use(unsafe.Pointer(unsafe.SliceData(points)), len(points))
	return d.Backend.MSMG2(points, scalars, threads)
}

// A key warmed before its first job is not uploaded by that job's region:
// every set the region uses on the device was made resident by WarmKey,
// and the proofs verify. Without WarmKey the same job uploads each set in
// its region (the test can fail).
func TestWarmKeyLeavesNoUploadToTheFirstRegion(t *testing.T) {
	f := testCircuit(t)
	for _, g2OnGPU := range []bool{false, true} {
		for _, warm := range []bool{true, false} {
			cfg := testConfig()
			cfg.GPUs.G2OnGPU = g2OnGPU
			dev := &residentDevice{warmed: map[uintptr]int{}}
			e := newEngine(t, cfg, Options{Devices: []backend.Backend{dev}})
			if warm {
				require.NoError(t, e.WarmKey(f.circuit.PK))
				// H, L, A, B_G1, and B_G2 only where the region runs it on the device
				want := 4
				if g2OnGPU {
					want = 5
				}
				require.Equal(t, want, dev.warms, "g2 on the GPU: %v", g2OnGPU)
			}
			f.proveChecked(t, e, f.request("warm", 2, Normal))
			dev.mu.Lock()
			cold := dev.cold
			dev.mu.Unlock()
			if warm {
				require.Empty(t, cold, "sets uploaded inside the region after WarmKey (g2 on the GPU: %v)", g2OnGPU)
			} else {
				require.NotEmpty(t, cold, "the region uploads an unwarmed key")
			}
			e.Close()
		}
	}
}

// WarmKey passes over the CPU device and a device out of service.
func TestWarmKeySkipsTheCPU(t *testing.T) {
	e := newEngine(t, testConfig(), Options{Devices: []backend.Backend{&cpu.Backend{}}})
	require.NoError(t, e.WarmKey(testCircuit(t).circuit.PK))
	require.NoError(t, e.WarmKey(nil))
}

// With a GPU that page-locks host memory, WarmKey fills the pool with
// the buffers of the key's first partitions (a, b, c and aux each), locked
// once; the jobs after it take every buffer from the pool, and Close
// unlocks them all.
func TestWarmKeyPrefillsLockedBuffers(t *testing.T) {
	f := testCircuit(t)
	be := &pinBackend{hookBackend: &hookBackend{name: "gpu0"}, pinned: map[*fr.Element]bool{}, pinnedMSMs: map[int]int{}}
	e, err := New(testConfig(), Options{Devices: []backend.Backend{be}})
	require.NoError(t, err)
	require.NoError(t, e.WarmKey(f.circuit.PK))
	want := int64(4 * prefillPartitions)
	eventually(t, func() bool { return e.Status().Memory.Pool.Allocs == want }, "the pool is filled ahead")
	for range 2 {
		f.proveChecked(t, e, f.request("", 3, Normal))
	}
	e.pool.drain()
	st := e.Status().Memory.Pool
	require.Equal(t, want, st.Allocs, "every partition's buffers came from the pool")
	require.EqualValues(t, want, be.pins)
	e.Close()
	require.Equal(t, be.pins, be.unpins)
	require.Empty(t, be.bad)

	// memory.pool_max below one buffer: nothing is kept, so nothing is
	// filled ahead.
	cfg := testConfig()
	cfg.Memory.PoolMax = config.AutoSize(1)
	be2 := &pinBackend{hookBackend: &hookBackend{name: "gpu1"}, pinned: map[*fr.Element]bool{}, pinnedMSMs: map[int]int{}}
	e2 := newEngine(t, cfg, Options{Devices: []backend.Backend{be2}})
	require.NoError(t, e2.WarmKey(f.circuit.PK))
	e2.Close()
	require.Zero(t, be2.pins)
}

// WarmKey holds the key's bytes once, however often it is called, and
// ReleaseKey gives them back.
func TestWarmKeyHoldsTheKeysBytes(t *testing.T) {
	pk := testCircuit(t).circuit.PK
	e := newEngine(t, testConfig(), Options{Devices: []backend.Backend{&cpu.Backend{}}})
	require.NoError(t, e.WarmKey(pk))
	require.NoError(t, e.WarmKey(pk))
	want := 96*uint64(len(pk.IC)+len(pk.H)+len(pk.L)+len(pk.A)+len(pk.BG1)) + 192*uint64(len(pk.BG2))
	require.Equal(t, want, e.Status().Memory.Keys)
	e.ReleaseKey(pk)
	require.Zero(t, e.Status().Memory.Keys)
}

// Options.PrefillPartitions sets how many partitions' buffers WarmKey
// locks ahead (below zero none), and a Prefill called before the key
// loads (a command that reads its circuit first) is counted by the
// warm-up's own: the buffers of one partition are locked once.
func TestPrefillPartitions(t *testing.T) {
	f := testCircuit(t)
	pk, cs := f.circuit.PK, f.circuit.CS
	for _, tc := range []struct {
		name         string
		k            int
		early        bool
		wantBuffers  int64
		provedAllocs int64 // after a 3-partition proof
	}{
		{"one", 1, false, 4, 12},
		{"one, prefilled before the load", 1, true, 4, 12},
		{"none", -1, false, 0, 12},
		{"the default", 0, false, 4 * prefillPartitions, 4 * prefillPartitions},
	} {
		t.Run(tc.name, func(t *testing.T) {
			be := &pinBackend{hookBackend: &hookBackend{name: "gpu0"}, pinned: map[*fr.Element]bool{}, pinnedMSMs: map[int]int{}}
			e, err := New(testConfig(), Options{Devices: []backend.Backend{be}, PrefillPartitions: tc.k})
			require.NoError(t, err)
			if tc.early {
				e.Prefill(len(pk.H)+1, cs.NumInputs, cs.NumAux, 1)
			}
			require.NoError(t, e.WarmKey(pk))
			e.Prefill(0, 1, 1, 1)  // no domain: nothing
			e.Prefill(8, 1, -1, 1) // negative aux: nothing
			e.Prefill(8, 1, 1, 0)  // no partitions: nothing
			// the prefills ran in order: the last one's end means all ended
			e.mu.Lock()
			last := e.prefilled
			e.mu.Unlock()
			if last != nil {
				<-last
			}
			require.Equal(t, tc.wantBuffers, e.Status().Memory.Pool.Allocs, "buffers locked ahead")
			f.proveChecked(t, e, f.request("", 3, Normal))
			e.pool.drain()
			require.Equal(t, tc.provedAllocs, e.Status().Memory.Pool.Allocs, "buffers mapped in all")
			e.Close()
			require.Equal(t, be.pins, be.unpins)
			require.Empty(t, be.bad)
		})
	}
}

// fileDevice is a residentDevice that streams sets from the key's file
// (backend.FileStreamer): it says whether it could, and counts UnpinKey.
type fileDevice struct {
	residentDevice
	streams bool
	unpins  int
}

func (d *fileDevice) Capabilities() backend.Capabilities {
	c := d.residentDevice.Capabilities()
	c.FromFile = d
	return c
}

func (d *fileDevice) StreamsKeyFromFile(*params.ProvingKey, bool) bool { return d.streams }

func (d *fileDevice) UnpinKey(*params.ProvingKey) {
	d.mu.Lock()
	d.unpins++
	d.mu.Unlock()
}

// A key whose host copy is over half the memory budget gives its pages
// back when the devices stream its sets from the file (their locking
// undone first); a smaller key, or devices that cannot, keep it. The
// decision is all this checks (the test key's sections are on the heap).
func TestWarmKeyReleasesAKeyStreamedFromItsFile(t *testing.T) {
	f := testCircuit(t)
	key := f.circuit.PK.HostBytes()
	for _, tc := range []struct {
		name    string
		budget  uint64
		streams bool
		unpins  int
	}{
		{"over half the budget", 2*key - 1, true, 1},
		{"within half the budget", 64 * key, true, 0},
		{"the device cannot", 2*key - 1, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.Memory.Budget = config.AutoSize(tc.budget)
			dev := &fileDevice{residentDevice: residentDevice{warmed: map[uintptr]int{}}, streams: tc.streams}
			e := newEngine(t, cfg, Options{Devices: []backend.Backend{dev}})
			require.NoError(t, e.WarmKey(f.circuit.PK))
			require.Equal(t, tc.unpins, dev.unpins)
			e.Close()
		})
	}
}
