package cuda

import (
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk/cuzk/core/params"
)

// A key's point sets on the device: made resident when the key is loaded
// (WarmG1, WarmG2: backend.Warmer), used by every proof, and freed when no
// handle names the key any more (ReleaseKey).

// WarmG1 makes points resident now if the memory plan keeps them, else
// page-locks them for streaming (backend.Warmer).
func (b *Backend) WarmG1(points []bls.G1Affine) error { return b.g1.warm(points) }

// WarmG2 is WarmG1 for G2 points.
func (b *Backend) WarmG2(points []bls.G2Affine) error { return b.g2.warm(points) }

// ReleaseKey frees the resident copies of pk's point sets (backend.
// KeyReleaser): without it a dropped SRS would hold its VRAM until the
// backend closes, and the budget would refuse the next key's sets.
func (b *Backend) ReleaseKey(pk *params.ProvingKey) {
	for _, s := range [][]bls.G1Affine{pk.H, pk.L, pk.A, pk.BG1} {
		b.g1.forget(s)
	}
	b.g2.forget(pk.BG2)
}

// HoldsKey reports whether every point set of pk (B_G2's when withG2) is
// resident on the device (backend.KeyHolder).
func (b *Backend) HoldsKey(pk *params.ProvingKey, withG2 bool) bool {
	for _, s := range [][]bls.G1Affine{pk.H, pk.L, pk.A, pk.BG1} {
		if len(s) > 0 && !b.g1.resident(s) {
			return false
		}
	}
	return !withG2 || len(pk.BG2) == 0 || b.g2.resident(pk.BG2)
}
