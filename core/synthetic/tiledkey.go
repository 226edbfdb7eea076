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
	t := tilesOf(cs, seed)
	tile1 := func(n int) []bls.G1Affine {
		out := make([]bls.G1Affine, n)
		for i := 0; i < n; i += len(t.g1) {
			copy(out[i:], t.g1)
		}
		return out
	}
	pk := &params.ProvingKey{VerifyingKey: t.vk,
		H: tile1(t.layout.H), L: tile1(t.layout.L), A: tile1(t.layout.A),
		BG1: tile1(t.layout.BG1), BG2: make([]bls.G2Affine, t.layout.BG2),
	}
	for i := 0; i < len(pk.BG2); i += len(t.g2) {
		copy(pk.BG2[i:], t.g2)
	}
	return pk
}

// WriteTiledKey writes TiledKey(cs, seed)'s parameter file to path without
// holding the key: what the benchmarks at 2^27 need (the key is ~71 GB,
// the host that proves with it has 125 GiB).
func WriteTiledKey(path string, cs *r1cs.R1CS, seed uint64) error {
	t := tilesOf(cs, seed)
	return params.WriteTiledFile(path, &t.vk, t.layout, t.g1, t.g2)
}

// tiles is a tiled key's verifying key, layout and tiles.
type tiles struct {
	vk     params.VerifyingKey
	layout params.TiledLayout
	g1     []bls.G1Affine
	g2     []bls.G2Affine
}

func tilesOf(cs *r1cs.R1CS, seed uint64) tiles {
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
	d := &cs.Density
	nB := d.BInput.Count() + d.BAux.Count()
	t := tiles{g1: g1, g2: g2, layout: params.TiledLayout{
		H: cs.DomainSize() - 1, L: cs.NumAux, A: cs.NumInputs + d.AAux.Count(), BG1: nB, BG2: nB}}
	t.vk.IC = make([]bls.G1Affine, cs.NumInputs)
	for i := 0; i < len(t.vk.IC); i += len(g1) {
		copy(t.vk.IC[i:], g1)
	}
	t.vk.Alpha1, t.vk.Beta1, t.vk.Delta1 = g1[0], g1[1], g1[2]
	t.vk.Beta2, t.vk.Gamma2, t.vk.Delta2 = g2[0], g2[1], gen2
	return t
}
