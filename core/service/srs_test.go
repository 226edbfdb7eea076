package service

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/backend/cpu"
	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/internal/paramtest"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
)

// releasingDevice is a CPU device that counts key releases.
type releasingDevice struct {
	cpu.Backend
	mu       sync.Mutex
	released map[*params.ProvingKey]int
	total    atomic.Int64
}

func (d *releasingDevice) Name() string { return "fake-gpu" }

func (d *releasingDevice) Capabilities() backend.Capabilities {
	c := d.Backend.Capabilities()
	c.Keys = d
	return c
}

func (d *releasingDevice) ReleaseKey(pk *params.ProvingKey) {
	d.mu.Lock()
	d.released[pk]++
	d.mu.Unlock()
	d.total.Add(1)
}

// countingChecker counts the points it checks, on the CPU.
type countingChecker struct{ points atomic.Int64 }

func (c *countingChecker) CheckSubgroupG1(p []bls.G1Affine) (int, error) {
	c.points.Add(int64(len(p)))
	return params.CPUChecker{}.CheckSubgroupG1(p)
}

func (c *countingChecker) CheckSubgroupG2(p []bls.G2Affine) (int, error) {
	c.points.Add(int64(len(p)))
	return params.CPUChecker{}.CheckSubgroupG2(p)
}

// smallKeys writes n distinct small parameter files and returns their
// paths and keys.
func smallKeys(t *testing.T, dir string, n int) ([]string, []*params.ProvingKey) {
	cs, _, err := synthetic.Generate(synthetic.Spec{Constraints: 1 << 4, DenseFraction: 0.5, Seed: 1})
	require.NoError(t, err)
	var paths []string
	var pks []*params.ProvingKey
	for i := range n {
		pk, err := groth16.Setup(cs, uint64(100+i))
		require.NoError(t, err)
		p := filepath.Join(dir, "k"+string(rune('0'+i))+".params")
		require.NoError(t, pk.WriteFile(p))
		paths, pks = append(paths, p), append(pks, pk)
	}
	return paths, pks
}

func newTestService(t *testing.T) (*Service, *releasingDevice) {
	dev := &releasingDevice{released: map[*params.ProvingKey]int{}}
	s := New(nil, config.CUDASearch{})
	s.devices = []backend.Backend{dev}
	s.SetDefaultRecordDir(t.TempDir())
	t.Cleanup(s.Close)
	return s, dev
}

func TestEvictByPathThroughUncachedHandle(t *testing.T) {
	s, dev := newTestService(t)
	paths, _ := smallKeys(t, t.TempDir(), 1)
	cached, err := s.OpenSRS(paths[0], true)
	require.NoError(t, err)
	other, err := s.OpenSRS(paths[0], false)
	require.NoError(t, err)
	require.NotSame(t, cached, other)

	require.False(t, s.EvictSRS(other), "the cached SRS still has a handle")
	again, err := s.OpenSRS(paths[0], true)
	require.NoError(t, err)
	require.NotSame(t, cached, again, "the path left the cache")
	require.Zero(t, dev.total.Load())
	require.True(t, s.DropSRS(cached))
	require.Equal(t, 1, dev.released[cached.pk])
	require.True(t, s.DropSRS(other))
	require.Equal(t, 1, dev.released[other.pk])
	require.False(t, s.EvictSRS(other), "evicts the path's newer SRS, whose handle remains")
	require.Nil(t, s.srs[paths[0]])
	require.True(t, s.DropSRS(again))
	require.Equal(t, int64(3), dev.total.Load())
}

func TestSRSCacheKeepsFourMostRecent(t *testing.T) {
	s, dev := newTestService(t)
	paths, _ := smallKeys(t, t.TempDir(), 5)
	hs := make([]*SRS, 5)
	for i := range 4 {
		h, err := s.OpenSRS(paths[i], true)
		require.NoError(t, err)
		require.True(t, s.DropSRS(h) == false, "cached")
		hs[i] = h
	}
	h0, err := s.OpenSRS(paths[0], true) // k0 becomes the most recent
	require.NoError(t, err)
	require.Same(t, hs[0], h0)
	hs[4], err = s.OpenSRS(paths[4], true) // k1 goes
	require.NoError(t, err)
	require.Len(t, s.srs, 4)
	require.Nil(t, s.srs[paths[1]])
	require.Equal(t, 1, dev.released[hs[1].pk], "an evicted SRS without handles is released at once")
	for _, i := range []int{0, 2, 3} {
		h, err := s.OpenSRS(paths[i], true)
		require.NoError(t, err)
		require.Same(t, hs[i], h)
	}
	require.Equal(t, int64(1), dev.total.Load())
}

func TestSRSReloadedWhenFileChanges(t *testing.T) {
	s, dev := newTestService(t)
	dir := t.TempDir()
	paths, pks := smallKeys(t, dir, 2)
	a, err := s.OpenSRS(paths[0], true)
	require.NoError(t, err)
	require.True(t, a.pk.Alpha1.Equal(&pks[0].Alpha1))

	require.NoError(t, os.Rename(paths[1], paths[0])) // replaced by another key
	b, err := s.OpenSRS(paths[0], true)
	require.NoError(t, err)
	require.NotSame(t, a, b)
	require.True(t, b.pk.Alpha1.Equal(&pks[1].Alpha1), "the new file's points are served")
	require.Zero(t, dev.total.Load(), "the old SRS still has its handle")
	require.True(t, s.DropSRS(a))
	require.Equal(t, 1, dev.released[a.pk])

	// Rewritten in place with the same size: the times differ.
	data, err := os.ReadFile(paths[0])
	require.NoError(t, err)
	require.NoError(t, pks[0].WriteFile(paths[0]+".new"))
	fresh, err := os.ReadFile(paths[0] + ".new")
	require.NoError(t, err)
	require.Len(t, fresh, len(data))
	f, err := os.OpenFile(paths[0], os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteAt(fresh, 0)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	c, err := s.OpenSRS(paths[0], true)
	require.NoError(t, err)
	require.NotSame(t, b, c)
	require.True(t, c.pk.Alpha1.Equal(&pks[0].Alpha1))
}

func TestReleaseOnceWhenLastHandleOfEvictedSRSDrops(t *testing.T) {
	s, dev := newTestService(t)
	paths, _ := smallKeys(t, t.TempDir(), 1)
	h, err := s.OpenSRS(paths[0], true)
	require.NoError(t, err)
	c := s.CloneSRS(h)
	require.False(t, s.EvictSRS(h))
	require.False(t, s.EvictSRS(h), "evicting twice drops the cache's reference once")
	require.False(t, s.DropSRS(h))
	require.Zero(t, dev.total.Load())
	require.True(t, s.DropSRS(c))
	require.Equal(t, int64(1), dev.total.Load())
	require.Equal(t, 1, dev.released[h.pk])
}

// Every service entry point validates as configured: checked once, then
// known by the record; a point off the subgroup refused every time.
func TestLoadEntryPointsHonourValidation(t *testing.T) {
	dir := t.TempDir()
	paths, pks := smallKeys(t, dir, 1)
	good, err := os.ReadFile(paths[0])
	require.NoError(t, err)
	pk := pks[0]
	counts := paramtest.Counts{IC: len(pk.IC), H: len(pk.H), L: len(pk.L), A: len(pk.A), BG1: len(pk.BG1)}
	bad := append([]byte(nil), good...)
	off := paramtest.OffSubgroupG1()
	raw := off.RawBytes()
	copy(bad[paramtest.Offset(counts, "l", 2):], raw[:])

	loaders := map[string]func(s *Service, trusted bool) error{
		"LoadParams": func(s *Service, trusted bool) error { return s.LoadParams("c", paths[0], trusted) },
		"OpenSRS": func(s *Service, trusted bool) error {
			h, err := s.OpenSRS(paths[0], false)
			if err == nil {
				s.DropSRS(h)
			}
			return err
		},
	}
	for name, load := range loaders {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(paths[0], good, 0o644))
			s, _ := newTestService(t)
			chk := &countingChecker{}
			s.SetSubgroupChecker(chk)
			require.NoError(t, load(s, false))
			checked := chk.points.Load()
			require.NotZero(t, checked)
			require.NoError(t, load(s, false))
			require.Equal(t, checked, chk.points.Load(), "recorded: not checked again")

			require.NoError(t, os.WriteFile(paths[0], bad, 0o644))
			for range 2 {
				err := load(s, false)
				require.ErrorIs(t, err, params.ErrNotInGroup)
				require.Equal(t, BadFile, CodeOf(err))
			}
			if name == "LoadParams" { // the caller's trust flag
				before := chk.points.Load()
				require.NoError(t, load(s, true))
				require.Equal(t, before, chk.points.Load())
			}

			// Trusted by the configuration: curve checks only.
			require.NoError(t, s.Configure(`srs.skip_subgroup_check = true`))
			before := chk.points.Load()
			require.NoError(t, load(s, false))
			require.Equal(t, before, chk.points.Load())
			// An explicit record directory from the configuration.
			recDir := t.TempDir()
			require.NoError(t, s.Configure(`srs.validation_record_dir = "`+recDir+`"`))
			require.ErrorIs(t, load(s, false), params.ErrNotInGroup)
			require.NoError(t, os.WriteFile(paths[0], good, 0o644))
			require.NoError(t, load(s, false))
			require.FileExists(t, filepath.Join(recDir, params.RecordFile))
		})
	}
}

// cuzk_evict_params frees the parameters' device memory: at once when no
// job uses them, else once the last job that does has settled (a kernel
// never reads freed points).
func TestEvictParamsReleasesDeviceMemoryWhenUnused(t *testing.T) {
	dir, _, ws := fixture(t)
	s, dev := newTestService(t)
	require.NoError(t, s.RegisterCircuit("c", filepath.Join(dir, "c.r1cs")))
	require.NoError(t, s.LoadParams("c", filepath.Join(dir, "c.params"), true))

	hold := make(chan struct{})
	job, err := s.Submit(Request{CircuitID: "c", Partitions: 1, WitnessFunc: func(int) (*r1cs.Witness, error) {
		<-hold
		return ws[0], nil
	}})
	require.NoError(t, err)
	require.NoError(t, s.EvictParams("c"))
	require.Zero(t, dev.total.Load(), "a job still uses the parameters")
	close(hold)
	_, err = s.Await(job, 0)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return dev.total.Load() == 1 }, 10*time.Second, time.Millisecond,
		"released once the job settled")

	require.NoError(t, s.LoadParams("c", filepath.Join(dir, "c.params"), true))
	require.NoError(t, s.EvictParams("c"))
	require.EqualValues(t, 2, dev.total.Load(), "no job: released at once")

	// A key replaced by another load, or refused for the circuit, is
	// released as well: it was made resident as it loaded.
	require.NoError(t, s.LoadParams("c", filepath.Join(dir, "c.params"), true))
	require.NoError(t, s.LoadParams("c", filepath.Join(dir, "c.params"), true))
	require.EqualValues(t, 3, dev.total.Load(), "the replaced key")
	other, _ := smallKeys(t, t.TempDir(), 1)
	require.Error(t, s.LoadParams("c", other[0], true), "another circuit's key")
	require.EqualValues(t, 4, dev.total.Load(), "the refused key")
	require.NoError(t, s.EvictParams("c"))
	require.EqualValues(t, 5, dev.total.Load())
}

// warmingDevice is a CPU device that records the point sets made
// resident ahead of a proof (Capabilities.Warm).
type warmingDevice struct {
	cpu.Backend
	mu   sync.Mutex
	sets map[*bls.G1Affine]int
}

func (d *warmingDevice) Name() string { return "fake-gpu" }

func (d *warmingDevice) Capabilities() backend.Capabilities {
	c := d.Backend.Capabilities()
	c.Warm = d
	return c
}

func (d *warmingDevice) WarmG1(p []bls.G1Affine) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(p) > 0 {
		d.sets[&p[0]] = len(p)
	}
	return nil
}

func (d *warmingDevice) WarmG2([]bls.G2Affine) error { return nil }

// create_SRS (OpenSRS) and cuzk_load_params (LoadParams) make the loaded
// key's sets resident before any proof, on every load: unchecked,
// checked, or a record hit.
func TestLoadsMakeTheKeyResident(t *testing.T) {
	dev := &warmingDevice{sets: map[*bls.G1Affine]int{}}
	s := New(nil, config.CUDASearch{})
	s.devices = []backend.Backend{dev}
	s.SetDefaultRecordDir(t.TempDir())
	t.Cleanup(s.Close)
	paths, _ := smallKeys(t, t.TempDir(), 1)
	for i := range 2 { // checked, then a record hit
		h, err := s.OpenSRS(paths[0], false)
		require.NoError(t, err)
		for _, set := range [][]bls.G1Affine{h.pk.H, h.pk.L, h.pk.A, h.pk.BG1} {
			require.Equal(t, len(set), dev.sets[&set[0]], "load %d", i)
		}
		s.DropSRS(h)
	}
	require.NoError(t, s.LoadParams("c", paths[0], true))
	s.mu.Lock()
	pk := s.entry("c").pk
	s.mu.Unlock()
	require.Equal(t, len(pk.L), dev.sets[&pk.L[0]])
}
