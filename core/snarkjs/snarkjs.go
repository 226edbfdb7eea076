// Package snarkjs converts verifying keys, proofs and public inputs to and
// from the JSON files of snarkjs (groth16, curve "bls12381"), so that a
// second, independent implementation can verify cuzk's proofs
// (`snarkjs groth16 verify verification_key.json public.json proof.json`)
// and cuzk can verify snarkjs's.
//
// Points are written in projective form with decimal coordinates: G1 as
// [x, y, "1"], G2 as [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]], the point at
// infinity as ["0", "1", "0"]. They are read as snarkjs's library
// (ffjavascript) means them, in Jacobian coordinates (x/z², y/z³), which
// for z = 1 is the affine point. public.json lists the public inputs
// without the constant ONE, as decimal strings.
package snarkjs

import (
	"encoding/json"
	"errors"
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
		return nil, fmt.Errorf("public inputs: want a JSON array of decimal strings: %w", jsonError(err))
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

// The protocol and curve names snarkjs writes for what cuzk reads.
const (
	Protocol = "groth16"
	Curve    = "bls12381"
)

// checkKind refuses another protocol or curve, naming it.
func checkKind(what, protocol, curve string) error {
	if protocol != Protocol {
		return fmt.Errorf("snarkjs: %s: protocol %q, cuzk reads %q", what, protocol, Protocol)
	}
	if curve != Curve {
		return fmt.Errorf("snarkjs: %s: curve %q, cuzk reads %q", what, curve, Curve)
	}
	return nil
}

// ParseVerifyingKey reads verification_key.json; every point must lie on
// the curve and in the prime-order subgroup.
func ParseVerifyingKey(data []byte) (*params.VerifyingKey, error) {
	var in VerificationKey
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("snarkjs: verifying key: %w", jsonError(err))
	}
	if err := checkKind("verifying key", in.Protocol, in.Curve); err != nil {
		return nil, err
	}
	if in.NPublic+1 != len(in.IC) {
		return nil, fmt.Errorf("snarkjs: verifying key: nPublic is %d but IC has %d points (want nPublic + 1)", in.NPublic, len(in.IC))
	}
	vk := &params.VerifyingKey{IC: make([]bls.G1Affine, len(in.IC))}
	var errs []error
	pt1 := func(name string, dst *bls.G1Affine, c []string) {
		if err := parseG1(dst, c); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	pt2 := func(name string, dst *bls.G2Affine, c [][]string) {
		if err := parseG2(dst, c); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	pt1("vk_alpha_1", &vk.Alpha1, in.Alpha1)
	pt2("vk_beta_2", &vk.Beta2, in.Beta2)
	pt2("vk_gamma_2", &vk.Gamma2, in.Gamma2)
	pt2("vk_delta_2", &vk.Delta2, in.Delta2)
	for i := range in.IC {
		pt1(fmt.Sprintf("IC[%d]", i), &vk.IC[i], in.IC[i])
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("snarkjs: verifying key: %w", errs[0])
	}
	// beta_g1 and delta_g1 are not in snarkjs's key and not used to verify.
	return vk, nil
}

// ParseProof reads proof.json; every point must lie on the curve and in
// the prime-order subgroup.
func ParseProof(data []byte) (*params.Proof, error) {
	var in Proof
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("snarkjs: proof: %w", jsonError(err))
	}
	if err := checkKind("proof", in.Protocol, in.Curve); err != nil {
		return nil, err
	}
	p := new(params.Proof)
	if err := parseG1(&p.A, in.A); err != nil {
		return nil, fmt.Errorf("snarkjs: proof: pi_a: %w", err)
	}
	if err := parseG2(&p.B, in.B); err != nil {
		return nil, fmt.Errorf("snarkjs: proof: pi_b: %w", err)
	}
	if err := parseG1(&p.C, in.C); err != nil {
		return nil, fmt.Errorf("snarkjs: proof: pi_c: %w", err)
	}
	return p, nil
}

var errPoint = errors.New("want 3 projective coordinates")

// coord parses a decimal base-field coordinate.
func coord(dst *fp.Element, s string) error {
	b, ok := new(big.Int).SetString(s, 10)
	if !ok || b.Sign() < 0 || b.Cmp(fp.Modulus()) >= 0 {
		return fmt.Errorf("%q is not a decimal base-field element", s)
	}
	dst.SetBigInt(b)
	return nil
}

// checkPoint refuses a point off the curve or outside its subgroup.
func checkPoint(p interface {
	IsOnCurve() bool
	IsInSubGroup() bool
}) error {
	if !p.IsOnCurve() {
		return params.ErrNotOnCurve
	}
	if !p.IsInSubGroup() {
		return params.ErrNotInGroup
	}
	return nil
}

func parseG1(dst *bls.G1Affine, c []string) error {
	if len(c) != 3 {
		return fmt.Errorf("%w, got %d", errPoint, len(c))
	}
	var j bls.G1Jac
	for i, d := range []*fp.Element{&j.X, &j.Y, &j.Z} {
		if err := coord(d, c[i]); err != nil {
			return err
		}
	}
	dst.FromJacobian(&j)
	return checkPoint(dst)
}

func parseG2(dst *bls.G2Affine, c [][]string) error {
	if len(c) != 3 {
		return fmt.Errorf("%w, got %d", errPoint, len(c))
	}
	var j bls.G2Jac
	for i, d := range [][2]*fp.Element{{&j.X.A0, &j.X.A1}, {&j.Y.A0, &j.Y.A1}, {&j.Z.A0, &j.Z.A1}} {
		if len(c[i]) != 2 {
			return fmt.Errorf("coordinate %d: want 2 Fp2 components, got %d", i, len(c[i]))
		}
		for k := range 2 {
			if err := coord(d[k], c[i][k]); err != nil {
				return err
			}
		}
	}
	dst.FromJacobian(&j)
	return checkPoint(dst)
}
