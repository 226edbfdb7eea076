package filekind_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/filekind"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/snarkjs"
	"github.com/cuzk/cuzk/core/synthetic"
)

// TestSniffEveryKind writes one file of each kind with the writers of the
// formats' packages and checks the kind and the counts against the
// circuit, key and proofs they were written from.
func TestSniffEveryKind(t *testing.T) {
	cs, w, err := synthetic.Generate(synthetic.Spec{Constraints: 300, DenseFraction: 0.4, Seed: 2})
	require.NoError(t, err)
	pk, err := groth16.Setup(cs, 1)
	require.NoError(t, err)
	proof, _, err := groth16.Prove(pk, cs, w, groth16.Options{})
	require.NoError(t, err)
	var pkBuf, vkBuf, csBuf bytes.Buffer
	_, err = pk.WriteTo(&pkBuf)
	require.NoError(t, err)
	_, err = pk.VerifyingKey.WriteTo(&vkBuf)
	require.NoError(t, err)
	_, err = cs.WriteTo(&csBuf)
	require.NoError(t, err)
	vkJSON, err := snarkjs.ExportVerifyingKey(&pk.VerifyingKey)
	require.NoError(t, err)
	proofJSON, err := snarkjs.ExportProof(proof)
	require.NoError(t, err)
	pubJSON, err := snarkjs.FormatPublic(w.Inputs[1:])
	require.NoError(t, err)
	pub := int64(cs.NumInputs - 1)

	for _, c := range []struct {
		name   string
		data   []byte
		kind   filekind.Kind
		counts map[string]int64
		points map[string]int64
	}{
		{"params", pkBuf.Bytes(), filekind.Params,
			map[string]int64{"public inputs": pub, "aux variables": int64(cs.NumAux), "rows in the domain": int64(cs.DomainSize())},
			map[string]int64{"ic": int64(len(pk.IC)), "h": int64(len(pk.H)), "l": int64(len(pk.L)), "a": int64(len(pk.A)), "b_g1": int64(len(pk.BG1)), "b_g2": int64(len(pk.BG2))}},
		{"vk", vkBuf.Bytes(), filekind.VerifyingKey, map[string]int64{"public inputs": pub}, map[string]int64{"ic": int64(len(pk.IC))}},
		{"one proof", params.EncodeProofs([]params.Proof{*proof}), filekind.Proofs, map[string]int64{"proofs": 1}, nil},
		{"three proofs", params.EncodeProofs([]params.Proof{*proof, *proof, *proof}), filekind.Proofs, map[string]int64{"proofs": 3}, nil},
		{"circom r1cs", cs.EncodeCircomR1CS(), filekind.CircomR1CS,
			map[string]int64{"constraints": int64(cs.NumConstraints), "wires": int64(cs.NumVars()), "public outputs": pub, "public inputs": 0, "private inputs": 0}, nil},
		{"circom wtns", r1cs.EncodeCircomWitness(w), filekind.CircomWitness, map[string]int64{"values": int64(cs.NumVars())}, nil},
		{"cuzk circuit", csBuf.Bytes(), filekind.CuzkCircuit,
			map[string]int64{"constraints": int64(cs.NumConstraints), "inputs (with ONE)": int64(cs.NumInputs), "aux variables": int64(cs.NumAux),
				"terms in A": int64(cs.A.NNZ()), "terms in B": int64(cs.B.NNZ()), "terms in C": int64(cs.C.NNZ())}, nil},
		{"snarkjs vk", vkJSON, filekind.SnarkjsVerifyingKey, map[string]int64{"public inputs": pub}, nil},
		{"snarkjs proof", proofJSON, filekind.SnarkjsProof, nil, nil},
		{"snarkjs public", pubJSON, filekind.SnarkjsPublic, map[string]int64{"public inputs": pub}, nil},
		{"empty", nil, filekind.Empty, nil, nil},
		{"zkey", []byte("zkey\x01\x00\x00\x00\x0a\x00\x00\x00"), filekind.SnarkjsZkey, nil, nil},
		{"ptau", []byte("ptau\x01\x00\x00\x00\x0b\x00\x00\x00"), filekind.Ptau, nil, nil},
		{"text", []byte("[srs]\nskip_subgroup_check = true\n"), filekind.Unknown, nil, nil},
		{"json object", []byte(`{"a": 1}`), filekind.JSON, nil, nil},
		{"json numbers", []byte(`[1, 2]`), filekind.JSON, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			info := filekind.Sniff(c.data)
			require.Equal(t, c.kind, info.Kind, info.String())
			require.Equal(t, int64(len(c.data)), info.Size)
			require.Empty(t, info.Problems)
			for name, n := range c.counts {
				got, ok := info.Count(name)
				require.True(t, ok, "%s: no count %q in %s", c.name, name, info)
				require.Equal(t, n, got, name)
			}
			got := map[string]int64{}
			for _, p := range info.Points {
				got[p.Name] = p.N
			}
			if c.points != nil {
				require.Equal(t, c.points, got)
			}
			if c.kind != filekind.Unknown && c.kind != filekind.Empty && c.kind != filekind.SnarkjsZkey && c.kind != filekind.Ptau && c.kind != filekind.SnarkjsPublic && c.kind != filekind.JSON {
				require.Equal(t, "BLS12-381", info.Field)
			}
		})
	}

	// Files of a known kind that cannot be used as they are say why.
	bn := cs.EncodeCircomR1CS()
	copy(bn[28:], bn254LE())
	info := filekind.Sniff(bn)
	require.Equal(t, filekind.CircomR1CS, info.Kind)
	require.Equal(t, "BN254", info.Field)
	require.Contains(t, info.String(), "--prime bls12381")

	cut := pkBuf.Bytes()[:pkBuf.Len()-100]
	info = filekind.Sniff(cut)
	require.Equal(t, filekind.Params, info.Kind)
	require.Contains(t, info.String(), "truncated or corrupt")

	bad := bytes.Replace(vkJSON, []byte(`"bls12381"`), []byte(`"bn128"`), 1)
	info = filekind.Sniff(bad)
	require.Equal(t, filekind.SnarkjsVerifyingKey, info.Kind)
	require.Equal(t, "BN254", info.Field)
	require.Contains(t, info.String(), `curve "bn128"; cuzk verifies "bls12381"`)

	wt := r1cs.EncodeCircomWitness(w)
	info = filekind.Sniff(wt[:len(wt)-5])
	require.Equal(t, filekind.CircomWitness, info.Kind)
	require.Contains(t, info.String(), "truncated")

	// SniffFile reads through a map; a missing path or a directory is an
	// error, not a kind.
	dir := t.TempDir()
	path := filepath.Join(dir, "w.wtns")
	require.NoError(t, os.WriteFile(path, wt, 0o644))
	info, err = filekind.SniffFile(path)
	require.NoError(t, err)
	require.Equal(t, filekind.CircomWitness, info.Kind)
	_, err = filekind.SniffFile(filepath.Join(dir, "none"))
	require.ErrorIs(t, err, os.ErrNotExist)
	_, err = filekind.SniffFile(dir)
	require.ErrorContains(t, err, "not a regular file")
}

// bn254LE is BN254's scalar field little-endian, as circom writes it.
func bn254LE() []byte {
	return []byte{0x01, 0x00, 0x00, 0xf0, 0x93, 0xf5, 0xe1, 0x43, 0x91, 0x70, 0xb9, 0x79, 0x48, 0xe8, 0x33, 0x28,
		0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45, 0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30}
}

func TestCountString(t *testing.T) {
	for c, want := range map[filekind.Count]string{
		{"values", 1285}:          "1285 values",
		{"values", 1}:             "1 value",
		{"terms in A", 1}:         "1 term in A",
		{"inputs (with ONE)", 1}:  "1 input (with ONE)",
		{"rows in the domain", 1}: "1 row in the domain",
		{"public inputs", 0}:      "0 public inputs",
		{"aux variables", 1}:      "1 aux variable",
	} {
		require.Equal(t, want, c.String())
	}
	info := filekind.Info{Kind: filekind.CircomWitness, Field: "BLS12-381", Counts: []filekind.Count{{"values", 1285}}}
	require.Equal(t, "a circom witness (.wtns) with 1285 values over BLS12-381", info.String())
}
