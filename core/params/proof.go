package params

import (
	"fmt"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// ProofSize is the size of one encoded proof: compressed A ‖ B ‖ C.
const ProofSize = G1Compressed + G2Compressed + G1Compressed

// Proof is a Groth16 proof. Its memory layout ({G1Affine; G2Affine;
// G1Affine}, 384 bytes) is supraseal-c2's groth16_proof.
type Proof struct {
	A bls.G1Affine
	B bls.G2Affine
	C bls.G1Affine
}

// Bytes encodes the proof as bellperson does: compressed A, B, C.
func (p *Proof) Bytes() [ProofSize]byte {
	var out [ProofSize]byte
	a, b, c := p.A.Bytes(), p.B.Bytes(), p.C.Bytes()
	copy(out[0:], a[:])
	copy(out[G1Compressed:], b[:])
	copy(out[G1Compressed+G2Compressed:], c[:])
	return out
}

// SetBytes decodes one 192-byte proof, checking that every point is on the
// curve and in the prime-order subgroup.
func (p *Proof) SetBytes(buf []byte) error {
	if len(buf) != ProofSize {
		return fmt.Errorf("params: proof: %w: %d bytes, want %d", ErrTruncated, len(buf), ProofSize)
	}
	if _, err := p.A.SetBytes(buf[:G1Compressed]); err != nil {
		return fmt.Errorf("params: proof.a: %w", err)
	}
	if _, err := p.B.SetBytes(buf[G1Compressed : G1Compressed+G2Compressed]); err != nil {
		return fmt.Errorf("params: proof.b: %w", err)
	}
	if _, err := p.C.SetBytes(buf[G1Compressed+G2Compressed:]); err != nil {
		return fmt.Errorf("params: proof.c: %w", err)
	}
	return nil
}

// EncodeProofs concatenates the encodings of proofs, in order.
func EncodeProofs(proofs []Proof) []byte {
	out := make([]byte, 0, len(proofs)*ProofSize)
	for i := range proofs {
		b := proofs[i].Bytes()
		out = append(out, b[:]...)
	}
	return out
}

// DecodeProofs splits buf into 192-byte proofs and decodes each.
func DecodeProofs(buf []byte) ([]Proof, error) {
	if len(buf) == 0 || len(buf)%ProofSize != 0 {
		return nil, fmt.Errorf("params: proofs: %d bytes is not a positive multiple of %d", len(buf), ProofSize)
	}
	proofs := make([]Proof, len(buf)/ProofSize)
	for i := range proofs {
		if err := proofs[i].SetBytes(buf[i*ProofSize : (i+1)*ProofSize]); err != nil {
			return nil, fmt.Errorf("partition %d: %w", i, err)
		}
	}
	return proofs, nil
}

// flagCompressed is the compression flag of a point's first byte.
const flagCompressed = 0x80

// CountProofs reports how many proofs buf holds, checking what can be
// checked without decoding a point: its size, and the compression flag
// of each proof's A, B and C.
func CountProofs(buf []byte) (int, error) {
	if len(buf) == 0 || len(buf)%ProofSize != 0 {
		return 0, fmt.Errorf("params: proofs: %d bytes is not a positive multiple of %d", len(buf), ProofSize)
	}
	n := len(buf) / ProofSize
	for i := range n {
		p := buf[i*ProofSize:]
		for _, at := range []int{0, G1Compressed, G1Compressed + G2Compressed} {
			if p[at]&flagCompressed == 0 {
				return 0, fmt.Errorf("params: proofs: proof %d: byte %d: %w (not a compressed point)", i, at, ErrFlags)
			}
		}
	}
	return n, nil
}
