package service

import (
	"path/filepath"
	"sync"
	"testing"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/backend/cpu"
	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/msm"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/synthetic"
)

// holdingDevice is a GPU made of host memory: a set made resident
// (Warmer) is copied into the device's own memory, and an MSM over a
// resident set reads that copy, never the host's points, as a GPU does;
// other sets go through the CPU backend. drop forgets the copies (a
// device that lost them).
type holdingDevice struct {
	cpu.Backend
	mu sync.Mutex
	g1 map[*bls.G1Affine][]bls.G1Affine
	g2 map[*bls.G2Affine][]bls.G2Affine
}

var (
	_ backend.Warmer    = (*holdingDevice)(nil)
	_ backend.KeyHolder = (*holdingDevice)(nil)
)

func (d *holdingDevice) Name() string { return "fake-gpu" }

func (d *holdingDevice) Capabilities() backend.Capabilities {
	c := d.Backend.Capabilities()
	c.Warm, c.Holds = d, d
	return c
}

func (d *holdingDevice) WarmG1(p []bls.G1Affine) error {
	if len(p) == 0 {
		return nil
	}
	if err := params.EnsureHost(unsafe.Pointer(&p[0]), uintptr(len(p))*unsafe.Sizeof(p[0])); err != nil {
		return err // the upload reads the host's points
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.g1[&p[0]] = append([]bls.G1Affine(nil), p...)
	return nil
}

func (d *holdingDevice) WarmG2(p []bls.G2Affine) error {
	if len(p) == 0 {
		return nil
	}
	if err := params.EnsureHost(unsafe.Pointer(&p[0]), uintptr(len(p))*unsafe.Sizeof(p[0])); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.g2[&p[0]] = append([]bls.G2Affine(nil), p...)
	return nil
}

func (d *holdingDevice) HoldsKey(pk *params.ProvingKey, withG2 bool) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, s := range [][]bls.G1Affine{pk.H, pk.L, pk.A, pk.BG1} {
		if len(s) > 0 && len(d.g1[&s[0]]) != len(s) {
			return false
		}
	}
	return !withG2 || len(pk.BG2) == 0 || len(d.g2[&pk.BG2[0]]) == len(pk.BG2)
}

// heldCopy returns the device's copy of points, or nil.
func heldCopy[P any](mu *sync.Mutex, sets map[*P][]P, points []P) []P {
	mu.Lock()
	defer mu.Unlock()
	if len(points) == 0 || len(sets[&points[0]]) != len(points) {
		return nil
	}
	return sets[&points[0]]
}

func (d *holdingDevice) MSMG1(points []bls.G1Affine, scalars []fr.Element) (bls.G1Jac, msm.Stats, error) {
	if held := heldCopy(&d.mu, d.g1, points); held != nil {
		return msm.G1(held, scalars, 2)
	}
	return d.Backend.MSMG1(points, scalars)
}

func (d *holdingDevice) MSMG2(points []bls.G2Affine, scalars []fr.Element, threads int) (bls.G2Jac, msm.Stats, error) {
	if held := heldCopy(&d.mu, d.g2, points); held != nil {
		return msm.G2(held, scalars, 2)
	}
	return d.Backend.MSMG2(points, scalars, threads)
}

func (d *holdingDevice) drop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	clear(d.g1)
	clear(d.g2)
}

// A key the devices hold gives its host copy back as it loads (create_SRS):
// the proofs, made from the devices' copies, verify; when a device no
// longer holds the sets, the next proof reads them from the file again,
// and verifies too.
func TestHeldKeyGivesItsHostCopyBack(t *testing.T) {
	cs, w, err := synthetic.Generate(synthetic.Spec{Constraints: 1<<14 - 8, DenseFraction: 0.5, Seed: 1})
	require.NoError(t, err)
	setup, err := groth16.Setup(cs, 5)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "c.params")
	require.NoError(t, setup.WriteFile(path))

	dev := &holdingDevice{g1: map[*bls.G1Affine][]bls.G1Affine{}, g2: map[*bls.G2Affine][]bls.G2Affine{}}
	s := New(nil, config.CUDASearch{})
	s.devices = []backend.Backend{dev}
	s.SetDefaultRecordDir(t.TempDir())
	t.Cleanup(s.Close)
	h, err := s.OpenSRS(path, false)
	require.NoError(t, err)
	t.Cleanup(func() { s.DropSRS(h) })
	all := uint64(len(setup.IC)+len(setup.H)+len(setup.L)+len(setup.A)+len(setup.BG1))*uint64(unsafe.Sizeof(bls.G1Affine{})) +
		uint64(len(setup.BG2))*uint64(unsafe.Sizeof(bls.G2Affine{}))
	require.Less(t, h.pk.HostBytes(), all/10, "the host copy was given back")
	eng, err := s.engine()
	require.NoError(t, err)
	require.Equal(t, h.pk.HostBytes(), eng.Status().Memory.Keys, "the budget counts what remains")

	prove := func() {
		t.Helper()
		r, sv := []fr.Element{fr.NewElement(3)}, []fr.Element{fr.NewElement(4)}
		proofs, err := s.ProveAssignments(h, []*groth16.Assignment{hostAssignment(t, cs, w)}, r, sv, nil, -1)
		require.NoError(t, err)
		require.NoError(t, groth16.Verify(&setup.VerifyingKey, &proofs[0], w.Inputs[1:]))
	}
	prove()
	require.Less(t, h.pk.HostBytes(), all/10, "the device's copies served the proof")

	dev.drop()
	prove()
	require.Equal(t, all, h.pk.HostBytes(), "read from the file again")
	require.Equal(t, setup.H, h.pk.H)
	require.Equal(t, setup.BG2, h.pk.BG2)
}
