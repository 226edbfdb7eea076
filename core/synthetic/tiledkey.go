package synthetic

import (
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
)

// TiledKey returns a proving key of the shape cs needs whose points are
// 4096 distinct G1 points (1024 in G2), multiples of the generators by
// scalars derived from seed, repeated. It is NOT a Groth16 setup: proofs
// made with it do not verify. It exists for benchmarks at production
// sizes, where a development setup takes hours of CPU (2^24 rows: ~10^8
// fixed-base multiplications) while the MSMs cost the same for any valid
// points; every point is on the curve and in the subgroup, so loading and
// validating it costs what a real file of that size costs. Benchmarks
// check such proofs against the CPU backend's instead of the verifier.
func TiledKey(cs *r1cs.R1CS, seed uint64) *params.ProvingKey {
	const distinctG1, distinctG2 = 4096, 1024
	_, _, gen1, gen2 := bls.Generators()
	scalars := func(n int, salt uint64) []fr.Element {
		s := make([]fr.Element, n)
		for i := range s {
			s[i] = seedElement(seed^salt, uint64(i))
		}
		return s
	}
	g1 := bls.BatchScalarMultiplicationG1(&gen1, scalars(distinctG1, 0x7131))
	g2 := bls.BatchScalarMultiplicationG2(&gen2, scalars(distinctG2, 0x7132))
	tile1 := func(n int) []bls.G1Affine {
		out := make([]bls.G1Affine, n)
		for i := 0; i < n; i += len(g1) {
			copy(out[i:], g1)
		}
		return out
	}
	d := &cs.Density
	nB := d.BInput.Count() + d.BAux.Count()
	pk := &params.ProvingKey{
		H: tile1(cs.DomainSize() - 1), L: tile1(cs.NumAux), A: tile1(cs.NumInputs + d.AAux.Count()),
		BG1: tile1(nB), BG2: make([]bls.G2Affine, nB),
	}
	pk.IC = tile1(cs.NumInputs)
	for i := 0; i < nB; i += len(g2) {
		copy(pk.BG2[i:], g2)
	}
	pk.Alpha1, pk.Beta1, pk.Delta1 = g1[0], g1[1], g1[2]
	pk.Beta2, pk.Gamma2, pk.Delta2 = g2[0], g2[1], gen2
	return pk
}
