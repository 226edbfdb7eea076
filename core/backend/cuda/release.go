package cuda

import (
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk/cuzk/core/params"
)

// ReleaseKey frees the resident copies of pk's point sets (backend.
// KeyReleaser): without it a dropped SRS would hold its VRAM until the
// backend closes, and the budget would refuse the next key's sets.
func (b *Backend) ReleaseKey(pk *params.ProvingKey) {
	for _, s := range [][]bls.G1Affine{pk.H, pk.L, pk.A, pk.BG1} {
		b.g1.forget(s)
	}
	b.g2.forget(pk.BG2)
}
