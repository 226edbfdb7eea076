// Package msm computes the multi-scalar multiplications of the Groth16
// prover with the 0/1 split that supraseal-c2 uses: in Filecoin circuits
// most witness values are 0 or 1 (bits), so points whose scalar is 0 are
// skipped, points whose scalar is 1 are summed with plain mixed additions
// (one addition each, against ~255/c bucket additions in Pippenger), and only
// the remaining points go through gnark-crypto's Pippenger MultiExp
// (Bootle et al., https://eprint.iacr.org/2012/549, section 4).
//
// The result equals the plain multi-scalar multiplication exactly; the tests
// check it against gnark-crypto's MultiExp on the same inputs.
package msm
