package params

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk/cuzk/core/internal/par"
)

// A device that streams a section whose host pages were given back reads
// the section's points from the parameter file as they are stored there
// (ReadEncoded) and converts them itself: the host then keeps neither a
// decoded copy nor a second copy of the file. An encoded point is as long
// as a decoded one (G1 96 bytes, G2 192), so a range of a section maps to
// the same number of bytes of the file.

// regionRange returns the off-heap section holding all of [p, p+n) and
// the range's byte offsets in it, or nil when there is none.
func regionRange(p unsafe.Pointer, n uintptr) (r *hostRegion, lo, hi int) {
	r = regionOf(uintptr(p))
	if r == nil || n == 0 {
		return nil, 0, 0
	}
	lo = int(uintptr(p) - r.base())
	if n > uintptr(len(r.mem)-lo) {
		return nil, 0, 0
	}
	return r, lo, lo + int(n)
}

// InFile reports whether [p, p+n) lies in one off-heap section that may
// give its pages back (ReleaseHost) and be read from its file as stored
// there (ReadEncoded): a section read again onto the host (EnsureHost)
// stays there.
func InFile(p unsafe.Pointer, n uintptr) bool {
	r, _, _ := regionRange(p, n)
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.held
}

// Released reports whether a page of [p, p+n) has been given back: its
// points are not on the host (EnsureHost decodes them again; ReadEncoded
// reads them as the file stores them).
func Released(p unsafe.Pointer, n uintptr) bool {
	r, lo, hi := regionRange(p, n)
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.anyFreed(lo/pageSize, (hi+pageSize-1)/pageSize)
}

// readPiece is the least a goroutine of ReadEncoded reads.
const readPiece = 64 << 20

// ReadEncoded reads into dst the points at [p, p+n) of an off-heap section
// as its file stores them (len(dst) = n, whole points), on every core:
// the file must be the one loaded, unchanged (its stamp is compared, and a
// short read is an error).
func ReadEncoded(p unsafe.Pointer, n uintptr, dst []byte) error {
	_, err := readEncoded(p, n, dst)
	return err
}

// readEncoded is ReadEncoded, returning the section read.
func readEncoded(p unsafe.Pointer, n uintptr, dst []byte) (*hostRegion, error) {
	r, lo, hi := regionRange(p, n)
	switch {
	case r == nil:
		return nil, fmt.Errorf("params: %d bytes at %p are not a section read from a file", n, p)
	case lo%r.size != 0 || (hi-lo)%r.size != 0 || len(dst) != hi-lo:
		return nil, fmt.Errorf("params: %d bytes at offset %d of a section of %d-byte points (into %d bytes): not whole points", hi-lo, lo, r.size, len(dst))
	}
	return r, r.src.open(func(f *os.File) error { return r.readAt(f, lo, dst) })
}

// readAt copies the file's bytes of the section's point lo/r.size on into
// dst, on every core.
func (r *hostRegion) readAt(f *os.File, lo int, dst []byte) error {
	at := int64(r.off) + int64(lo) // the file's bytes of point lo/size
	pieces := max(1, min(runtime.GOMAXPROCS(0), len(dst)/readPiece))
	per := (len(dst)/pieces + r.size - 1) / r.size * r.size
	errs := make([]error, pieces)
	par.For(pieces, func(k int) {
		from, to := min(k*per, len(dst)), min((k+1)*per, len(dst))
		if from == to {
			return
		}
		if _, err := f.ReadAt(dst[from:to], at+int64(from)); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			errs[k] = fmt.Errorf("params: %s: reading points again: %w", r.src.path, err)
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// ReadDecoded reads into dst the points at [p, p+n) of an off-heap
// section from its file, decoded (len(dst) = n; dst is the memory of
// whole G1Affine or G2Affine points, as the section holds): a device that
// uploads a given-back range as it is, with no streamer to convert it,
// takes the range from here, and the section stays given back (EnsureHost
// would decode all of it onto the host again: a 2^27-domain B_G2 is
// 25.8 GB).
func ReadDecoded(p unsafe.Pointer, n uintptr, dst []byte) error {
	if len(dst) > 0 && uintptr(unsafe.Pointer(&dst[0]))%unsafe.Alignof(bls.G1Affine{}) != 0 {
		return fmt.Errorf("params: a buffer at %p is not aligned for points", &dst[0])
	}
	r, err := readEncoded(p, n, dst)
	if err != nil {
		return err
	}
	size := r.size
	g1 := size == int(unsafe.Sizeof(bls.G1Affine{}))
	count := len(dst) / size
	const run = 1 << 14 // points a goroutine decodes at a time
	errs := make([]error, (count+run-1)/run)
	par.For(len(errs), func(k int) {
		var enc [G2Uncompressed]byte
		for i := k * run; i < min(count, (k+1)*run); i++ {
			// Encoded and decoded points are the same length: each is
			// decoded from a copy into its own bytes.
			copy(enc[:size], dst[i*size:])
			var err error
			if at := unsafe.Pointer(&dst[i*size]); g1 {
				err = decodeG1(enc[:size], (*bls.G1Affine)(at), false)
			} else {
				err = decodeG2(enc[:size], (*bls.G2Affine)(at), false)
			}
			if err != nil {
				errs[k] = fmt.Errorf("params: point %d of a range read again: %w", i, err)
				return
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
