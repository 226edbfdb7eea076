package engine

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/backend/cpu"
	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/internal/filetest"
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
// (backend.FileStreamer): it says whether it could, and counts UnpinKey
// and PinKeyFile.
type fileDevice struct {
	residentDevice
	streams        bool
	unpins, pinned int
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

func (d *fileDevice) PinKeyFile(pk *params.ProvingKey) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.unpins == d.pinned { // only after the pages went
		panic("PinKeyFile before UnpinKey")
	}
	d.pinned++
}

// A key whose host copy is over half the memory budget gives its pages
// back when the devices stream its sets from the file (their locking
// undone first, the file's pages locked after); a smaller key, or
// devices that cannot, keep it. The
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
			require.Equal(t, tc.unpins, dev.pinned, "the file's pages locked once the host's went")
			e.Close()
		})
	}
}

// streamingChecker is a fileDevice whose subgroup check takes each range
// without keeping it, as a GPU does a set it streams under a memory cap:
// it checks the points on the CPU and leaves their host pages alone.
// With noFile it is no backend.FileStreamer.
type streamingChecker struct {
	fileDevice
	noFile bool
}

func (d *streamingChecker) Capabilities() backend.Capabilities {
	c := d.fileDevice.Capabilities()
	c.Subgroup = d
	if d.noFile {
		c.FromFile = nil
	}
	return c
}

func (d *streamingChecker) CheckSubgroupG1(p []bls.G1Affine) (int, error) {
	return params.CPUChecker{}.CheckSubgroupG1(p)
}

func (d *streamingChecker) CheckSubgroupG2(p []bls.G2Affine) (int, error) {
	return params.CPUChecker{}.CheckSubgroupG2(p)
}

func (d *streamingChecker) BeginG1(p []bls.G1Affine) params.SectionCheck {
	return cpuSection[bls.G1Affine]{p, d.CheckSubgroupG1}
}

func (d *streamingChecker) BeginG2(p []bls.G2Affine) params.SectionCheck {
	return cpuSection[bls.G2Affine]{p, d.CheckSubgroupG2}
}

type cpuSection[P any] struct {
	points []P
	check  func([]P) (int, error)
}

func (s cpuSection[P]) Check(from, to int) (int, error) {
	bad, err := s.check(s.points[from:to])
	if bad >= 0 {
		bad += from
	}
	return bad, err
}

func (cpuSection[P]) Fill(int, int) error { return nil }
func (cpuSection[P]) Done(bool)           {}

// tiledKeyFile writes a key whose sections are each over a MiB (read off
// the heap by the library's loads), its tiles multiples of the generators.
func tiledKeyFile(t *testing.T) string {
	t.Helper()
	_, _, g1, g2 := bls.Generators()
	s := make([]fr.Element, 64)
	for i := range s {
		s[i].SetUint64(uint64(i + 2))
	}
	t1 := bls.BatchScalarMultiplicationG1(&g1, s)
	t2 := bls.BatchScalarMultiplicationG2(&g2, s)
	vk := &params.VerifyingKey{Alpha1: t1[0], Beta1: t1[1], Delta1: t1[2], Beta2: t2[0], Gamma2: t2[1], Delta2: t2[2], IC: t1[:3]}
	path := filepath.Join(t.TempDir(), "tiled.params")
	layout := params.TiledLayout{H: 20000, L: 15000, A: 12000, BG1: 11000, BG2: 6000}
	require.NoError(t, params.WriteTiledFile(path, vk, layout, t1, t2))
	return path
}

// A key over half the budget that the devices stream from its file gives
// its pages back range by range while it loads, checked or not (a 2^27
// key's streamed sets beside its file would not fit the host), B_G2's
// only where the G2 MSM runs on the device; a smaller key, a device that
// cannot stream from the file, or an unknown size keep them. The points
// read back from the file are the ones loaded.
func TestLoadGivesBackAKeyStreamedFromItsFile(t *testing.T) {
	path := tiledKeyFile(t)
	ref, err := params.ReadProvingKey(path, params.Options{SkipSubgroupCheck: true})
	require.NoError(t, err)
	all := ref.HostBytes()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	for _, tc := range []struct {
		name          string
		budget        uint64
		size          int64
		fromFile, g2  bool
		skip          bool // unchecked: each range filled
		released, bg2 bool // G1 sections given back; B_G2's too
	}{
		{"over half the budget, checked", 2*all - 1, fi.Size(), true, true, false, true, true},
		{"over half the budget", 2*all - 1, fi.Size(), true, true, true, true, true},
		{"the G2 MSM on the CPU", 2*all - 1, fi.Size(), true, false, true, true, false},
		{"within half the budget", 64 * all, fi.Size(), true, true, true, false, false},
		{"the device cannot", 2*all - 1, fi.Size(), false, true, true, false, false},
		{"size unknown", 2*all - 1, 0, true, true, true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.Memory.Budget = config.AutoSize(tc.budget)
			cfg.GPUs.G2OnGPU = tc.g2
			dev := &streamingChecker{fileDevice{residentDevice: residentDevice{warmed: map[uintptr]int{}}, streams: true}, !tc.fromFile}
			e := newEngine(t, cfg, Options{Devices: []backend.Backend{dev}})
			c := e.LoadChecker(tc.size)
			require.Same(t, dev, checkerOf(c))
			pk, err := params.ReadProvingKey(path, params.Options{Checker: c, SkipSubgroupCheck: tc.skip, OffHeap: true, NbTasks: 2})
			require.NoError(t, err)
			g1 := 96 * uint64(len(pk.H)+len(pk.L)+len(pk.A)+len(pk.BG1))
			left := pk.HostBytes()
			switch {
			case tc.bg2:
				require.Less(t, left, all/10, "every section given back as it loaded")
			case tc.released:
				require.Less(t, left, all-g1*9/10, "the G1 sections given back")
				require.Greater(t, left, 192*uint64(len(pk.BG2)), "B_G2 kept")
			default:
				require.Equal(t, all, left, "nothing given back")
			}
			for _, s := range [][]bls.G1Affine{pk.H, pk.L, pk.A, pk.BG1} {
				require.NoError(t, params.EnsureHost(unsafe.Pointer(unsafe.SliceData(s)), uintptr(len(s))*96))
			}
			require.NoError(t, params.EnsureHost(unsafe.Pointer(unsafe.SliceData(pk.BG2)), uintptr(len(pk.BG2))*192))
			require.Equal(t, ref.H, pk.H)
			require.Equal(t, ref.L, pk.L)
			require.Equal(t, ref.BG2, pk.BG2)
		})
	}
}

// holdingDevice is a fileDevice that holds every key whole.
type holdingDevice struct{ fileDevice }

func (d *holdingDevice) Capabilities() backend.Capabilities {
	c := d.fileDevice.Capabilities()
	c.Holds = d
	return c
}

func (d *holdingDevice) HoldsKey(*params.ProvingKey, bool) bool { return true }

// A key the devices hold whole closes the descriptor of its file kept
// since the load (a file removed once loaded then gives its pages back);
// a key they stream from the file keeps it, and its sections read the
// file loaded even once its path is gone.
func TestWarmKeyClosesTheFileOfAKeyTheDevicesHold(t *testing.T) {
	path := tiledKeyFile(t)
	ref, err := params.ReadProvingKey(path, params.Options{SkipSubgroupCheck: true})
	require.NoError(t, err)
	for _, holds := range []bool{true, false} {
		cfg := testConfig()
		cfg.Memory.Budget = config.AutoSize(2*ref.HostBytes() - 1)
		h := &holdingDevice{fileDevice{residentDevice: residentDevice{warmed: map[uintptr]int{}}, streams: true}}
		var dev backend.Backend = &h.fileDevice
		if holds {
			dev = h
		}
		e := newEngine(t, cfg, Options{Devices: []backend.Backend{dev}})
		pk, err := params.ReadProvingKey(path, params.Options{SkipSubgroupCheck: true, OffHeap: true, NbTasks: 2})
		require.NoError(t, err)
		require.Equal(t, 1, filetest.OpenDescriptors(t, path))
		require.NoError(t, e.WarmKey(pk))
		require.Less(t, pk.HostBytes(), ref.HostBytes()/10, "given back")
		l := unsafe.Pointer(unsafe.SliceData(pk.L))
		if holds {
			require.Zero(t, filetest.OpenDescriptors(t, path), "holds=%v", holds)
			require.NoError(t, params.EnsureHost(l, uintptr(len(pk.L))*96), "the path opened again")
		} else {
			require.Equal(t, 1, filetest.OpenDescriptors(t, path), "holds=%v", holds)
			moved := path + ".moved"
			require.NoError(t, os.Rename(path, moved))
			require.NoError(t, params.EnsureHost(l, uintptr(len(pk.L))*96), "read through the descriptor")
			require.NoError(t, os.Rename(moved, path))
		}
		require.Equal(t, ref.L, pk.L)
		e.Close()
		runtime.KeepAlive(pk)
	}
}
