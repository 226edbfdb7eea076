package params

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/internal/paramtest"
)

// Published encodings of the BLS12-381 generators (zcash serialisation, as
// in the IETF pairing-friendly-curves draft and the zkcrypto/blst tests).
const (
	g1Compressed   = "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
	g1Uncompressed = "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb" +
		"08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1"
	g2Compressed = "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e" +
		"024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"
	g2Uncompressed = "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e" +
		"024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8" +
		"0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be" +
		"0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"
)

func TestGeneratorEncodings(t *testing.T) {
	_, _, g1, g2 := bls.Generators()
	c1, c2 := g1.Bytes(), g2.Bytes()
	require.Equal(t, g1Compressed, hex.EncodeToString(c1[:]))
	require.Equal(t, g2Compressed, hex.EncodeToString(c2[:]))

	var buf [G2Uncompressed]byte
	encodeG1(buf[:], &g1)
	require.Equal(t, g1Uncompressed, hex.EncodeToString(buf[:G1Uncompressed]))
	encodeG2(buf[:], &g2)
	require.Equal(t, g2Uncompressed, hex.EncodeToString(buf[:]))

	var p1 bls.G1Affine
	raw, _ := hex.DecodeString(g1Uncompressed)
	require.NoError(t, decodeG1(raw, &p1, true))
	require.True(t, p1.Equal(&g1))
	var p2 bls.G2Affine
	raw, _ = hex.DecodeString(g2Uncompressed)
	require.NoError(t, decodeG2(raw, &p2, true))
	require.True(t, p2.Equal(&g2))
}

// montLE returns the little-endian bytes of x·2^bits mod m, the Montgomery
// representation blst and supraseal keep in memory.
func montLE(x, m *big.Int, bits uint, size int) []byte {
	v := new(big.Int).Lsh(x, bits)
	v.Mod(v, m)
	be := v.FillBytes(make([]byte, size))
	for i, j := 0, len(be)-1; i < j; i, j = i+1, j-1 {
		be[i], be[j] = be[j], be[i]
	}
	return be
}

func memBytes[T any](v *T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(v)), unsafe.Sizeof(*v))
}

// TestMemoryLayouts proves the layouts the C ABI reinterprets without
// copying: fr_t is 4 u64 Montgomery limbs (R = 2^256), fp 6 limbs (R =
// 2^384), affine points are {x, y} (G2: {x.c0, x.c1, y.c0, y.c1}), the
// point at infinity is all zeros, and groth16_proof is {a; b; c}.
func TestMemoryLayouts(t *testing.T) {
	var x fr.Element
	x.SetUint64(123456789)
	x.Square(&x).Square(&x).Square(&x) // > 64 bits
	require.Equal(t, montLE(x.BigInt(new(big.Int)), fr.Modulus(), 256, 32), memBytes(&x))

	_, _, g1, g2 := bls.Generators()
	require.Equal(t, uintptr(96), unsafe.Sizeof(g1))
	require.Equal(t, uintptr(192), unsafe.Sizeof(g2))
	var want []byte
	for _, c := range []*fp.Element{&g1.X, &g1.Y} {
		want = append(want, montLE(c.BigInt(new(big.Int)), fp.Modulus(), 384, 48)...)
	}
	require.Equal(t, want, memBytes(&g1))
	want = nil
	for _, c := range []*fp.Element{&g2.X.A0, &g2.X.A1, &g2.Y.A0, &g2.Y.A1} {
		want = append(want, montLE(c.BigInt(new(big.Int)), fp.Modulus(), 384, 48)...)
	}
	require.Equal(t, want, memBytes(&g2))

	var inf bls.G1Affine
	inf.SetInfinity()
	require.Equal(t, make([]byte, 96), memBytes(&inf))
	require.True(t, inf.IsInfinity())

	var p Proof
	require.Equal(t, uintptr(384), unsafe.Sizeof(p))
	require.Equal(t, uintptr(0), unsafe.Offsetof(p.A))
	require.Equal(t, uintptr(96), unsafe.Offsetof(p.B))
	require.Equal(t, uintptr(288), unsafe.Offsetof(p.C))
}

func randomG1(rng *rand.Rand) bls.G1Affine {
	_, _, g1, _ := bls.Generators()
	var p bls.G1Affine
	p.ScalarMultiplication(&g1, new(big.Int).SetUint64(rng.Uint64()))
	return p
}

func randomG2(rng *rand.Rand) bls.G2Affine {
	_, _, _, g2 := bls.Generators()
	var p bls.G2Affine
	p.ScalarMultiplication(&g2, new(big.Int).SetUint64(rng.Uint64()))
	return p
}

func randomKey(rng *rand.Rand) *ProvingKey {
	g1s := func(n int) []bls.G1Affine {
		out := make([]bls.G1Affine, n)
		for i := range out {
			out[i] = randomG1(rng)
		}
		return out
	}
	pk := &ProvingKey{}
	pk.Alpha1, pk.Beta1, pk.Delta1 = randomG1(rng), randomG1(rng), randomG1(rng)
	pk.Beta2, pk.Gamma2, pk.Delta2 = randomG2(rng), randomG2(rng), randomG2(rng)
	pk.IC, pk.H, pk.L, pk.A, pk.BG1 = g1s(3), g1s(7), g1s(5), g1s(4), g1s(2)
	pk.L[1].SetInfinity() // L may hold the point at infinity (an unused variable)
	pk.BG2 = []bls.G2Affine{randomG2(rng), randomG2(rng)}
	return pk
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pk := randomKey(rng)
	var buf bytes.Buffer
	n, err := pk.WriteTo(&buf)
	require.NoError(t, err)
	require.Equal(t, int64(buf.Len()), n)
	wantSize := 3*96 + 3*192 + 6*4 + (3+7+5+4+2)*96 + 2*192
	require.Equal(t, wantSize, buf.Len())

	back, err := DecodeProvingKey(buf.Bytes(), Options{})
	require.NoError(t, err)
	require.Equal(t, pk, back)

	// Files: params, and vk written alone or read from the params.
	dir := t.TempDir()
	require.NoError(t, pk.WriteFile(filepath.Join(dir, "p.params")))
	fromFile, err := ReadProvingKey(filepath.Join(dir, "p.params"), Options{NbTasks: 3})
	require.NoError(t, err)
	require.Equal(t, pk, fromFile)
	require.NoError(t, pk.VerifyingKey.WriteFile(filepath.Join(dir, "p.vk")))
	for _, f := range []string{"p.vk", "p.params"} {
		vk, err := ReadVerifyingKey(filepath.Join(dir, f), Options{})
		require.NoError(t, err)
		require.Equal(t, &pk.VerifyingKey, vk)
	}
	vkBytes, _ := os.ReadFile(filepath.Join(dir, "p.vk"))
	require.Equal(t, buf.Bytes()[:len(vkBytes)], vkBytes)
	_, err = ReadProvingKey(filepath.Join(dir, "missing.params"), Options{})
	require.ErrorContains(t, err, "params: ")
	require.ErrorIs(t, err, os.ErrNotExist)
}

// offSubgroupG1 returns the encoding of a point on the curve but outside
// the prime-order subgroup.
func offSubgroupG1(*testing.T) []byte {
	p := paramtest.OffSubgroupG1()
	raw := p.RawBytes()
	return raw[:]
}

func TestDecodeErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pk := randomKey(rng)
	var buf bytes.Buffer
	_, err := pk.WriteTo(&buf)
	require.NoError(t, err)
	good := buf.Bytes()
	hOff := 3*96 + 3*192 + 4 + 3*96 + 4 // first h point
	h2 := hOff + 2*96                   // h[2]

	mutate := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := []struct {
		name string
		data []byte
		opt  Options
		want error
		msg  string
	}{
		{"empty", nil, Options{}, ErrTruncated, "params: alpha_g1: truncated"},
		{"truncated header", good[:100], Options{}, ErrTruncated, "params: beta_g1"},
		{"truncated h", good[:h2+10], Options{}, ErrTruncated, "params: h: truncated: count 7"},
		{"trailing", append(append([]byte(nil), good...), 0), Options{}, ErrTrailingData, "1 bytes after b_g2"},
		{"off curve", mutate(func(b []byte) []byte { b[h2+95] ^= 1; return b }), Options{}, ErrNotOnCurve, "params: h[2]: point not on curve"},
		{"bad flags", mutate(func(b []byte) []byte { b[h2] |= 0x80; return b }), Options{}, ErrFlags, "params: h[2]: invalid encoding flags"},
		{"bad infinity", mutate(func(b []byte) []byte { b[h2] = 0x40; return b }), Options{}, ErrBadInfinity, "params: h[2]"},
		{"coordinate too big", mutate(func(b []byte) []byte { copy(b[h2:h2+48], bytes.Repeat([]byte{0x1f}, 48)); return b }), Options{}, ErrCoordinate, "params: h[2]"},
		{"off subgroup", mutate(func(b []byte) []byte { copy(b[h2:], offSubgroupG1(t)); return b }), Options{}, ErrNotInGroup, "params: h[2]: point not in the prime-order subgroup"},
		{"off curve alpha", mutate(func(b []byte) []byte { b[95] ^= 1; return b }), Options{}, ErrNotOnCurve, "params: alpha_g1: point not on curve"},
		{"off curve b_g2", mutate(func(b []byte) []byte { b[len(b)-1] ^= 1; return b }), Options{}, ErrNotOnCurve, "params: b_g2[1]: point not on curve"},
		{"huge count", mutate(func(b []byte) []byte { b[hOff-4] = 0xff; return b }), Options{}, ErrTruncated, "params: h: truncated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeProvingKey(c.data, c.opt)
			require.ErrorIs(t, err, c.want)
			require.ErrorContains(t, err, c.msg)
		})
	}
	// The subgroup check can be skipped for trusted files; curve checks stay.
	offSub := mutate(func(b []byte) []byte { copy(b[h2:], offSubgroupG1(t)); return b })
	_, err = DecodeProvingKey(offSub, Options{SkipSubgroupCheck: true})
	require.NoError(t, err)
	_, err = DecodeProvingKey(cases[4].data, Options{SkipSubgroupCheck: true})
	require.ErrorIs(t, err, ErrNotOnCurve)

	// The vk reader checks the structure of the rest of a params file.
	_, err = DecodeVerifyingKey(good[:len(good)-1], Options{})
	require.ErrorIs(t, err, ErrTruncated)
}

func TestProofEncoding(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	proofs := make([]Proof, 3)
	for i := range proofs {
		proofs[i] = Proof{A: randomG1(rng), B: randomG2(rng), C: randomG1(rng)}
	}
	enc := EncodeProofs(proofs)
	require.Len(t, enc, 3*ProofSize)
	// Each proof is compressed A ‖ B ‖ C.
	a, b := proofs[1].A.Bytes(), proofs[1].B.Bytes()
	require.Equal(t, a[:], enc[ProofSize:ProofSize+48])
	require.Equal(t, b[:], enc[ProofSize+48:ProofSize+144])
	back, err := DecodeProofs(enc)
	require.NoError(t, err)
	require.Equal(t, proofs, back)

	_, err = DecodeProofs(enc[:ProofSize+10])
	require.ErrorContains(t, err, "multiple of 192")
	bad := append([]byte(nil), enc...)
	bad[ProofSize+ProofSize-1] ^= 1 // proof 1's C x-coordinate
	_, err = DecodeProofs(bad)
	require.Error(t, err)
	require.True(t, errors.Unwrap(err) != nil)
	require.ErrorContains(t, err, "partition 1: params: proof.c")
}
