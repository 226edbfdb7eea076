// Package cpu is the CPU backend: gnark-crypto's NTTs and MSMs (with the
// 0/1 split of package msm). It always works and is the reference the
// other backends are tested against.
package cpu

import (
	"runtime"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/msm"
	"github.com/cuzk/cuzk/core/ntt"
	"github.com/cuzk/cuzk/core/params"
)

// Backend runs on the CPU with NbTasks goroutines per operation (0 =
// GOMAXPROCS).
type Backend struct {
	NbTasks int
}

func (b *Backend) tasks() int {
	if b != nil && b.NbTasks > 0 {
		return b.NbTasks
	}
	return runtime.GOMAXPROCS(0)
}

// Name returns "cpu".
func (b *Backend) Name() string { return "cpu" }

// Capabilities: the subgroup check, beside H and the MSMs.
func (b *Backend) Capabilities() backend.Capabilities {
	return backend.Capabilities{Subgroup: b}
}

// H computes h with gnark-crypto's NTTs.
func (b *Backend) H(a, bb, c []fr.Element) ([]fr.Element, error) {
	return ntt.H(a, bb, c, b.tasks()), nil
}

// MSMG1 is msm.G1. A key's section given back once a device held it is
// read from its file first (params.EnsureHost).
func (b *Backend) MSMG1(points []bls.G1Affine, scalars []fr.Element) (bls.G1Jac, msm.Stats, error) {
	if err := onHost(points); err != nil {
		return bls.G1Jac{}, msm.Stats{}, err
	}
	return msm.G1(points, scalars, b.tasks())
}

// MSMG2 is msm.G2 with the given thread bound.
func (b *Backend) MSMG2(points []bls.G2Affine, scalars []fr.Element, threads int) (bls.G2Jac, msm.Stats, error) {
	if err := onHost(points); err != nil {
		return bls.G2Jac{}, msm.Stats{}, err
	}
	if threads <= 0 {
		threads = b.tasks()
	}
	return msm.G2(points, scalars, threads)
}

func onHost[P bls.G1Affine | bls.G2Affine](points []P) error {
	if len(points) == 0 {
		return nil
	}
	var p P
	return params.EnsureHost(unsafe.Pointer(unsafe.SliceData(points)), uintptr(len(points))*unsafe.Sizeof(p))
}
