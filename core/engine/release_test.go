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
	require.Same(t, dev, checkerOf(e.SubgroupChecker()))

	plain := newEngine(t, testConfig(), Options{Devices: []backend.Backend{&cpu.Backend{}}})
	require.Nil(t, plain.SubgroupChecker())
	plain.ReleaseKey(testCircuit(t).circuit.PK) // no releaser: nothing to do
}

// A key's release waits for the last unsettled job that uses it, and
// happens once; an unused key is released at once; a key used again after
// its release starts afresh.
func TestKeyUsesDeferTheRelease(t *testing.T) {
	pk, other := &params.ProvingKey{}, &params.ProvingKey{}
	freed := map[*params.ProvingKey]int{}
	k := newKeyUses(func(p *params.ProvingKey) { freed[p]++ })
	done1, done2 := k.use(pk), k.use(pk)
	k.release(pk)
	require.Zero(t, freed[pk], "two jobs use it")
	done1()
	require.Zero(t, freed[pk], "one job still uses it")
	done2()
	require.Equal(t, 1, freed[pk], "released as the last job settles")
	k.release(other)
	require.Equal(t, 1, freed[other], "unused: released at once")
	done3 := k.use(pk)
	done3()
	require.Equal(t, 1, freed[pk], "a use after the release holds no release of its own")
}
