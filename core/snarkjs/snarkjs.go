// Package snarkjs converts verifying keys, proofs and public inputs to and
// from the JSON files of snarkjs (groth16, curve "bls12381"), so that a
// second, independent implementation can verify cuzk's proofs:
// `snarkjs groth16 verify verification_key.json public.json proof.json`.
//
// Points are written in projective form with decimal coordinates: G1 as
// [x, y, "1"], G2 as [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]], the point at
// infinity as ["0", "1", "0"]. public.json lists the public inputs without
// the constant ONE, as decimal strings.
package snarkjs

import (
	"encoding/json"
	"fmt"
	"math/big"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/params"
)

func dec(e *fp.Element) string { return e.BigInt(new(big.Int)).String() }

func g1(p *bls.G1Affine) []string {
	if p.IsInfinity() {
		return []string{"0", "1", "0"}
	}
	return []string{dec(&p.X), dec(&p.Y), "1"}
}

func g2(p *bls.G2Affine) [][]string {
	if p.IsInfinity() {
		return [][]string{{"0", "0"}, {"1", "0"}, {"0", "0"}}
	}
	return [][]string{{dec(&p.X.A0), dec(&p.X.A1)}, {dec(&p.Y.A0), dec(&p.Y.A1)}, {"1", "0"}}
}

// VerificationKey is snarkjs's verification_key.json.
type VerificationKey struct {
	Protocol string     `json:"protocol"`
	Curve    string     `json:"curve"`
	NPublic  int        `json:"nPublic"`
	Alpha1   []string   `json:"vk_alpha_1"`
	Beta2    [][]string `json:"vk_beta_2"`
	Gamma2   [][]string `json:"vk_gamma_2"`
	Delta2   [][]string `json:"vk_delta_2"`
	IC       [][]string `json:"IC"`
}

// Proof is snarkjs's proof.json.
type Proof struct {
	A        []string   `json:"pi_a"`
	B        [][]string `json:"pi_b"`
	C        []string   `json:"pi_c"`
	Protocol string     `json:"protocol"`
	Curve    string     `json:"curve"`
}

// ExportVerifyingKey returns verification_key.json for vk.
func ExportVerifyingKey(vk *params.VerifyingKey) ([]byte, error) {
	out := VerificationKey{
		Protocol: "groth16", Curve: "bls12381", NPublic: len(vk.IC) - 1,
		Alpha1: g1(&vk.Alpha1), Beta2: g2(&vk.Beta2), Gamma2: g2(&vk.Gamma2), Delta2: g2(&vk.Delta2),
	}
	for i := range vk.IC {
		out.IC = append(out.IC, g1(&vk.IC[i]))
	}
	return json.MarshalIndent(out, "", " ")
}

// ExportProof returns proof.json for p.
func ExportProof(p *params.Proof) ([]byte, error) {
	return json.MarshalIndent(Proof{A: g1(&p.A), B: g2(&p.B), C: g1(&p.C), Protocol: "groth16", Curve: "bls12381"}, "", " ")
}

// FormatPublic returns public.json for the public inputs (without ONE).
func FormatPublic(public []fr.Element) ([]byte, error) {
	s := make([]string, len(public))
	for i := range public {
		s[i] = public[i].BigInt(new(big.Int)).String()
	}
	return json.MarshalIndent(s, "", " ")
}

// ParsePublic reads public.json: an array of decimal strings, each a
// canonical field element.
func ParsePublic(data []byte) ([]fr.Element, error) {
	var s []string
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("public inputs: want a JSON array of decimal strings: %w", err)
	}
	out := make([]fr.Element, len(s))
	for i, v := range s {
		b, ok := new(big.Int).SetString(v, 10)
		if !ok || b.Sign() < 0 || b.Cmp(fr.Modulus()) >= 0 {
			return nil, fmt.Errorf("public inputs: [%d] = %q is not a decimal field element", i, v)
		}
		out[i].SetBigInt(b)
	}
	return out, nil
}
