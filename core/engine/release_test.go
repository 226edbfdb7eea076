package engine

import (
	"sync/atomic"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/backend/cpu"
	"github.com/cuzk/cuzk/core/params"
)

// keyDevice is a CPU backend that counts key releases and offers a
// subgroup checker, as a GPU backend does.
type keyDevice struct {
	cpu.Backend
	released atomic.Int64
}

func (k *keyDevice) Name() string { return "fake-gpu" }

func (k *keyDevice) Capabilities() backend.Capabilities {
	c := k.Backend.Capabilities()
	c.Keys, c.Subgroup = k, k
	return c
}

func (k *keyDevice) ReleaseKey(*params.ProvingKey) { k.released.Add(1) }

func (k *keyDevice) CheckSubgroupG1([]bls.G1Affine) (int, error) { return -1, nil }
func (k *keyDevice) CheckSubgroupG2([]bls.G2Affine) (int, error) { return -1, nil }

func TestReleaseKeyReachesDevices(t *testing.T) {
	dev := &keyDevice{}
	e := newEngine(t, testConfig(), Options{Devices: []backend.Backend{&cpu.Backend{}, dev}})
	e.ReleaseKey(testCircuit(t).circuit.PK)
	e.ReleaseKey(nil)
	require.Equal(t, int64(1), dev.released.Load())
	require.Same(t, dev, e.SubgroupChecker())

	plain := newEngine(t, testConfig(), Options{Devices: []backend.Backend{&cpu.Backend{}}})
	require.Nil(t, plain.SubgroupChecker())
	plain.ReleaseKey(testCircuit(t).circuit.PK) // no releaser: nothing to do
}
