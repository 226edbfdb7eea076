package groth16

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/params"
)

// ErrInvalidProof is returned for a well-formed proof that fails the
// pairing check.
var ErrInvalidProof = errors.New("groth16: invalid proof")

// Verify checks proof against vk and the public inputs (without the
// constant ONE): e(A, B) = e(α, β)·e(Σ x_i·IC_i, γ)·e(C, δ).
func Verify(vk *params.VerifyingKey, proof *params.Proof, public []fr.Element) error {
	if len(public)+1 != len(vk.IC) {
		return fmt.Errorf("groth16: %d public inputs, verifying key expects %d", len(public), len(vk.IC)-1)
	}
	for _, c := range []struct {
		name string
		ok   bool
	}{{"a", proof.A.IsInSubGroup()}, {"b", proof.B.IsInSubGroup()}, {"c", proof.C.IsInSubGroup()}} {
		if !c.ok {
			return fmt.Errorf("groth16: proof.%s: not a point of the prime-order subgroup", c.name)
		}
	}
	var acc bls.G1Jac
	acc.FromAffine(&vk.IC[0])
	if len(public) > 0 {
		var x bls.G1Jac
		if _, err := x.MultiExp(vk.IC[1:], public, ecc.MultiExpConfig{}); err != nil {
			return fmt.Errorf("groth16: %w", err)
		}
		acc.AddAssign(&x)
	}
	var vkx bls.G1Affine
	vkx.FromJacobian(&acc)

	var negAlpha, negVkx, negC bls.G1Affine
	negAlpha.Neg(&vk.Alpha1)
	negVkx.Neg(&vkx)
	negC.Neg(&proof.C)
	ok, err := bls.PairingCheck(
		[]bls.G1Affine{proof.A, negAlpha, negVkx, negC},
		[]bls.G2Affine{proof.B, vk.Beta2, vk.Gamma2, vk.Delta2},
	)
	if err != nil {
		return fmt.Errorf("groth16: %w", err)
	}
	if !ok {
		return ErrInvalidProof
	}
	return nil
}
