package snarkjs_test

import (
	"encoding/json"
	"math/big"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/internal/paramtest"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/snarkjs"
	"github.com/cuzk/cuzk/core/synthetic"
)

// fixture proves a small synthetic circuit and returns its verifying key,
// proof and public inputs as snarkjs JSON.
func fixture(t *testing.T) (pk *params.ProvingKey, proof *params.Proof, vkJSON, proofJSON, pubJSON []byte) {
	cs, w, err := synthetic.Generate(synthetic.Spec{Constraints: 1 << 8, DenseFraction: 0.5, Seed: 3})
	require.NoError(t, err)
	pk, err = groth16.Setup(cs, 7)
	require.NoError(t, err)
	proof, _, err = groth16.Prove(pk, cs, w, groth16.Options{})
	require.NoError(t, err)
	vkJSON, err = snarkjs.ExportVerifyingKey(&pk.VerifyingKey)
	require.NoError(t, err)
	proofJSON, err = snarkjs.ExportProof(proof)
	require.NoError(t, err)
	pubJSON, err = snarkjs.FormatPublic(w.Inputs[1:])
	require.NoError(t, err)
	return
}

// TestParseVerifies: the key and proof read back from JSON verify with the
// public inputs read back, and a wrong public input does not.
func TestParseVerifies(t *testing.T) {
	pk, proof, vkJSON, proofJSON, pubJSON := fixture(t)
	vk, err := snarkjs.ParseVerifyingKey(vkJSON)
	require.NoError(t, err)
	p, err := snarkjs.ParseProof(proofJSON)
	require.NoError(t, err)
	pub, err := snarkjs.ParsePublic(pubJSON)
	require.NoError(t, err)
	require.NoError(t, groth16.Verify(vk, p, pub))
	require.True(t, p.A.Equal(&proof.A) && p.B.Equal(&proof.B) && p.C.Equal(&proof.C))
	require.Len(t, vk.IC, len(pk.IC))
	pub[0].SetUint64(12345)
	require.ErrorIs(t, groth16.Verify(vk, p, pub), groth16.ErrInvalidProof)
}

// scaled writes an affine G1 point in Jacobian coordinates with z = 2:
// (x·z², y·z³, z).
func scaled(p *bls.G1Affine) []string {
	var z, z2, z3, x, y fp.Element
	z.SetUint64(2)
	z2.Square(&z)
	z3.Mul(&z2, &z)
	x.Mul(&p.X, &z2)
	y.Mul(&p.Y, &z3)
	d := func(e *fp.Element) string { return e.BigInt(new(big.Int)).String() }
	return []string{d(&x), d(&y), d(&z)}
}

// TestParseJacobian: a point with z ≠ 1 is read as ffjavascript means it.
func TestParseJacobian(t *testing.T) {
	_, proof, _, proofJSON, _ := fixture(t)
	var in snarkjs.Proof
	require.NoError(t, json.Unmarshal(proofJSON, &in))
	in.A = scaled(&proof.A)
	data, err := json.Marshal(in)
	require.NoError(t, err)
	p, err := snarkjs.ParseProof(data)
	require.NoError(t, err)
	require.True(t, p.A.Equal(&proof.A))
}

func TestParseErrors(t *testing.T) {
	_, _, vkJSON, proofJSON, _ := fixture(t)
	edit := func(data []byte, f func(m map[string]any)) []byte {
		var m map[string]any
		require.NoError(t, json.Unmarshal(data, &m))
		f(m)
		out, err := json.Marshal(m)
		require.NoError(t, err)
		return out
	}
	for _, c := range []struct {
		name, msg string
		vk        bool
		data      []byte
	}{
		{"bn128 key", `curve "bn128", cuzk reads "bls12381"`, true, edit(vkJSON, func(m map[string]any) { m["curve"] = "bn128" })},
		{"plonk proof", `protocol "plonk"`, false, edit(proofJSON, func(m map[string]any) { m["protocol"] = "plonk" })},
		{"nPublic", "nPublic is 5", true, edit(vkJSON, func(m map[string]any) { m["nPublic"] = 5 })},
		{"off curve", "pi_a: point not on curve", false, edit(proofJSON, func(m map[string]any) { m["pi_a"] = []string{"1", "1", "1"} })},
		{"off subgroup", "IC[1]: point not in the prime-order subgroup", true, edit(vkJSON, func(m map[string]any) {
			off := paramtest.OffSubgroupG1()
			m["IC"].([]any)[1] = []string{off.X.BigInt(new(big.Int)).String(), off.Y.BigInt(new(big.Int)).String(), "1"}
		})},
		{"coordinate", "pi_c: \"-1\" is not a decimal base-field element", false, edit(proofJSON, func(m map[string]any) { m["pi_c"] = []string{"-1", "1", "1"} })},
		{"short point", "vk_beta_2: want 3 projective coordinates, got 2", true, edit(vkJSON, func(m map[string]any) { m["vk_beta_2"] = [][]string{{"1", "0"}, {"1", "0"}} })},
		{"not json", "snarkjs: proof:", false, []byte("\x00\x01")},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.vk {
				_, err = snarkjs.ParseVerifyingKey(c.data)
			} else {
				_, err = snarkjs.ParseProof(c.data)
			}
			require.ErrorContains(t, err, c.msg)
		})
	}
}
