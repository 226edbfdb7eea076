package params

import (
	"bufio"
	"fmt"
	"io"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk/cuzk/core/internal/fileio"
)

// TiledLayout is the shape of a key whose query sections repeat two tiles
// of points: the number of points in H, L, A, B_G1 and B_G2.
type TiledLayout struct {
	H, L, A, BG1, BG2 int
}

// WriteTiledFile writes, atomically, the parameter file of vk followed by
// query sections of the layout's sizes, each the G1 tile (B_G2: the G2
// tile) repeated from its start and cut at the section's end: what
// WriteTo writes for such a key, without holding it (a 2^27-domain key is
// ~71 GB; its tiles are a few hundred KB, encoded once and copied).
func WriteTiledFile(path string, vk *VerifyingKey, l TiledLayout, g1 []bls.G1Affine, g2 []bls.G2Affine) error {
	if len(g1) == 0 || len(g2) == 0 {
		return fmt.Errorf("params: a tiled key needs points in both tiles")
	}
	for _, n := range []int{l.H, l.L, l.A, l.BG1, l.BG2} {
		if n < 0 || uint64(n) > 1<<32-1 {
			return fmt.Errorf("params: a section of %d points cannot be written (at most 2^32-1)", n)
		}
	}
	enc1 := make([]byte, len(g1)*G1Uncompressed)
	for i := range g1 {
		encodeG1(enc1[i*G1Uncompressed:], &g1[i])
	}
	enc2 := make([]byte, len(g2)*G2Uncompressed)
	for i := range g2 {
		encodeG2(enc2[i*G2Uncompressed:], &g2[i])
	}
	return wrapIO(fileio.WriteAtomic(path, func(w io.Writer) error {
		cw := &countingWriter{w: bufio.NewWriterSize(w, 4<<20)}
		vk.write(cw)
		for _, n := range []int{l.H, l.L, l.A, l.BG1} {
			cw.repeated(n, enc1, G1Uncompressed)
		}
		cw.repeated(l.BG2, enc2, G2Uncompressed)
		return cw.flush()
	}))
}

// repeated writes a section of n points: its count, then tile (encoded
// points of size bytes each) repeated, the last copy cut at the n-th point.
func (c *countingWriter) repeated(n int, tile []byte, size int) {
	c.count(n)
	left := n * size
	for left > 0 && c.err == nil {
		k := min(left, len(tile))
		c.write(tile[:k])
		left -= k
	}
}
