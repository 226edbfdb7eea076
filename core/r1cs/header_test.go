package r1cs_test

import (
	"bytes"
	"encoding/binary"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
)

// bn254R is BN254's scalar field, circom's default prime.
var bn254R, _ = new(big.Int).SetString("21888242871839275222246405745257275088548364400416034343698204186575808495617", 10)

// circomFile lays out an iden3 container by hand, following the format's
// description (magic, version, section count; each section as type u32,
// size u64, body), independently of the package's writer.
func circomFile(magic string, version uint32, sections ...[]byte) []byte {
	var b bytes.Buffer
	b.WriteString(magic)
	binary.Write(&b, binary.LittleEndian, version)
	binary.Write(&b, binary.LittleEndian, uint32(len(sections)))
	for i, s := range sections {
		binary.Write(&b, binary.LittleEndian, uint32(i+1))
		binary.Write(&b, binary.LittleEndian, uint64(len(s)))
		b.Write(s)
	}
	return b.Bytes()
}

// primeField is a header's (n8, prime) pair, the prime little-endian.
func primeField(p *big.Int) []byte {
	be := p.FillBytes(make([]byte, 32))
	out := binary.LittleEndian.AppendUint32(nil, 32)
	for i := len(be) - 1; i >= 0; i-- {
		out = append(out, be[i])
	}
	return out
}

func TestCircomHeaders(t *testing.T) {
	// A BN254 circuit: read as it is (the header says what the file is;
	// the full reader refuses it).
	hdr := primeField(bn254R)
	for _, v := range []uint32{7, 1, 2, 3} { // wires, outputs, public, private
		hdr = binary.LittleEndian.AppendUint32(hdr, v)
	}
	hdr = binary.LittleEndian.AppendUint64(hdr, 11) // labels
	hdr = binary.LittleEndian.AppendUint32(hdr, 0)  // constraints
	h, err := r1cs.DecodeCircomHeader(circomFile("r1cs", 1, hdr, nil))
	require.NoError(t, err)
	require.Equal(t, r1cs.CircomHeader{Version: 1, Prime: bn254R, Wires: 7, PublicOutputs: 1, PublicInputs: 2, PrivateInputs: 3, Labels: 11}, h)

	whdr := binary.LittleEndian.AppendUint32(primeField(fr.Modulus()), 3)
	w, err := r1cs.DecodeCircomWitnessHeader(circomFile("wtns", 2, whdr, make([]byte, 3*32)))
	require.NoError(t, err)
	require.Equal(t, r1cs.WitnessHeader{Version: 2, Prime: fr.Modulus(), Values: 3}, w)
	_, err = r1cs.DecodeCircomWitnessHeader(circomFile("wtns", 2, whdr, make([]byte, 2*32)))
	require.ErrorContains(t, err, "want 96 for 3 values")
	_, err = r1cs.DecodeCircomHeader(circomFile("wtns", 2, whdr, nil))
	require.ErrorContains(t, err, "not a circom r1cs file")

	// The package's own files: the counts of the system written.
	cs, wit := synthetic.Random(rand.New(rand.NewPCG(1, 2)), synthetic.ShapeDense, 20)
	h, err = r1cs.DecodeCircomHeader(cs.EncodeCircomR1CS())
	require.NoError(t, err)
	require.EqualValues(t, cs.NumVars(), h.Wires)
	require.EqualValues(t, cs.NumInputs-1, h.PublicOutputs)
	require.EqualValues(t, cs.NumConstraints, h.Constraints)
	w, err = r1cs.DecodeCircomWitnessHeader(r1cs.EncodeCircomWitness(wit))
	require.NoError(t, err)
	require.EqualValues(t, cs.NumVars(), w.Values)

	var buf bytes.Buffer
	_, err = cs.WriteTo(&buf)
	require.NoError(t, err)
	ch, err := r1cs.DecodeHeader(buf.Bytes())
	require.NoError(t, err)
	require.Equal(t, r1cs.Header{Version: 1, NumInputs: uint64(cs.NumInputs), NumAux: uint64(cs.NumAux),
		NumConstraints: uint64(cs.NumConstraints), NumCoeffs: uint64(len(cs.Coeffs)),
		NNZ: [3]uint64{uint64(cs.A.NNZ()), uint64(cs.B.NNZ()), uint64(cs.C.NNZ())}}, ch)
	_, err = r1cs.DecodeHeader(buf.Bytes()[:buf.Len()-1])
	require.ErrorIs(t, err, r1cs.ErrFormat)
}
