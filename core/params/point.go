package params

import (
	"errors"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// Sizes of the encodings, in bytes.
const (
	G1Uncompressed = 96
	G2Uncompressed = 192
	G1Compressed   = 48
	G2Compressed   = 96
)

// Errors a point decoding can return; they are wrapped with the section and
// index of the point, so callers test them with errors.Is.
var (
	ErrFlags        = errors.New("invalid encoding flags")
	ErrCoordinate   = errors.New("coordinate not in the base field")
	ErrNotOnCurve   = errors.New("point not on curve")
	ErrNotInGroup   = errors.New("point not in the prime-order subgroup")
	ErrBadInfinity  = errors.New("malformed point at infinity")
	ErrTruncated    = errors.New("truncated")
	ErrTrailingData = errors.New("trailing bytes")
)

// Flag bits of the first byte (zcash serialisation).
const (
	flagMask     = 0xe0
	flagInfinity = 0x40
)

func allZero(first byte, rest []byte) bool {
	if first != 0 {
		return false
	}
	for _, b := range rest {
		if b != 0 {
			return false
		}
	}
	return true
}

// infinity reads the flag bits of an uncompressed point of size bytes: it
// reports a well-formed point at infinity, or an error for flags that an
// uncompressed finite point cannot carry.
func infinity(buf []byte, size int) (bool, error) {
	switch buf[0] & flagMask {
	case flagInfinity:
		if !allZero(buf[0]&^flagMask, buf[1:size]) {
			return false, ErrBadInfinity
		}
		return true, nil
	case 0:
		return false, nil
	}
	return false, ErrFlags
}

// decodeG1 reads an uncompressed G1 point from buf[:96]. It checks the
// encoding, that the point is on the curve and, when subgroup is set, that
// it lies in the prime-order subgroup.
func decodeG1(buf []byte, p *bls.G1Affine, subgroup bool) error {
	if inf, err := infinity(buf, G1Uncompressed); inf || err != nil {
		p.X.SetZero()
		p.Y.SetZero()
		return err
	}
	if err := p.X.SetBytesCanonical(buf[0:48]); err != nil {
		return ErrCoordinate
	}
	if err := p.Y.SetBytesCanonical(buf[48:96]); err != nil {
		return ErrCoordinate
	}
	// (0, 0) is gnark-crypto's in-memory infinity; as an uncompressed
	// finite point it is simply off the curve.
	if (p.X.IsZero() && p.Y.IsZero()) || !p.IsOnCurve() {
		return ErrNotOnCurve
	}
	if subgroup && !p.IsInSubGroup() {
		return ErrNotInGroup
	}
	return nil
}

// decodeG2 reads an uncompressed G2 point from buf[:192]: x.c1, x.c0, y.c1,
// y.c0, each 48 bytes big-endian.
func decodeG2(buf []byte, p *bls.G2Affine, subgroup bool) error {
	if inf, err := infinity(buf, G2Uncompressed); inf || err != nil {
		p.X.SetZero()
		p.Y.SetZero()
		return err
	}
	coords := [4]*fp.Element{&p.X.A1, &p.X.A0, &p.Y.A1, &p.Y.A0}
	for i, c := range coords {
		if err := c.SetBytesCanonical(buf[48*i : 48*(i+1)]); err != nil {
			return ErrCoordinate
		}
	}
	if (p.X.IsZero() && p.Y.IsZero()) || !p.IsOnCurve() {
		return ErrNotOnCurve
	}
	if subgroup && !p.IsInSubGroup() {
		return ErrNotInGroup
	}
	return nil
}

// encodeG1 writes p uncompressed into buf[:96].
func encodeG1(buf []byte, p *bls.G1Affine) {
	raw := p.RawBytes()
	copy(buf, raw[:])
}

// encodeG2 writes p uncompressed into buf[:192].
func encodeG2(buf []byte, p *bls.G2Affine) {
	raw := p.RawBytes()
	copy(buf, raw[:])
}
