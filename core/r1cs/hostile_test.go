package r1cs_test

import (
	"encoding/binary"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/internal/fileio"
	"github.com/cuzk/cuzk/core/r1cs"
)

const hugeCount = 1<<31 - 1

// hugeCircomHeader is a 264-byte circom .r1cs file whose header claims
// 2^31 - 1 wires and no constraints, with a 152-byte wire map (19 wires'
// worth) to reach the size of the file that made `cuzk setup` die of
// memory.
func hugeCircomHeader() []byte {
	hdr := binary.LittleEndian.AppendUint32(nil, fr.Bytes)
	le := fr.Modulus().FillBytes(make([]byte, fr.Bytes))
	for i := len(le) - 1; i >= 0; i-- {
		hdr = append(hdr, le[i])
	}
	for _, v := range []uint32{hugeCount, 0, 0, 0} { // wires, outputs, public, private
		hdr = binary.LittleEndian.AppendUint32(hdr, v)
	}
	hdr = binary.LittleEndian.AppendUint64(hdr, hugeCount) // labels
	hdr = binary.LittleEndian.AppendUint32(hdr, 0)         // constraints
	out := []byte("r1cs")
	out = binary.LittleEndian.AppendUint32(out, 1)
	out = binary.LittleEndian.AppendUint32(out, 3)
	for typ, body := range [][]byte{hdr, nil, make([]byte, 152)} {
		out = binary.LittleEndian.AppendUint32(out, uint32(typ+1))
		out = binary.LittleEndian.AppendUint64(out, uint64(len(body)))
		out = append(out, body...)
	}
	return out
}

// hugeCuzkHeader is a well-formed file in cuzk's format (right size, right
// checksum, the coefficient table 1, -1, no terms) that declares
// 2^31 - 1 variables and, with constraints > 0, as many empty rows.
func hugeCuzkHeader(aux, constraints uint64) []byte {
	out := []byte("CUZKR1CS")
	out = binary.LittleEndian.AppendUint32(out, 1)
	out = binary.LittleEndian.AppendUint32(out, 0)
	for _, v := range []uint64{1, aux, constraints, 2, 0, 0, 0} {
		out = binary.LittleEndian.AppendUint64(out, v)
	}
	var one, minusOne fr.Element
	one.SetOne()
	minusOne.Neg(&one)
	for _, c := range []fr.Element{one, minusOne} {
		var b [fr.Bytes]byte
		fr.LittleEndian.PutElement(&b, c)
		out = append(out, b[:]...)
	}
	out = append(out, make([]byte, 3*8*(constraints+1))...) // row pointers, all 0
	return binary.LittleEndian.AppendUint32(out, r1cs.CRCOf(out))
}

// allocated runs fn and returns the bytes it allocated.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestHeaderClaimsBillionsOfWires: a tiny file declaring 2^31 - 1
// variables is refused before anything is sized by the claim (it used to
// pass, with 768 MiB of density bitmaps, and kill the setup that followed).
func TestHeaderClaimsBillionsOfWires(t *testing.T) {
	circom := hugeCircomHeader()
	require.Len(t, circom, 264)
	for name, decode := range map[string]func() error{
		"circom": func() error { _, err := r1cs.DecodeCircomR1CS(circom); return err },
		"cuzk":   func() error { _, err := r1cs.Decode(hugeCuzkHeader(hugeCount-1, 0)); return err },
	} {
		var err error
		n := allocated(func() { err = decode() })
		require.ErrorContains(t, err, "variables declared", name)
		require.Less(t, n, uint64(1<<20), "%s: %d bytes allocated", name, n)
	}
}

// TestVariablesPerByte: the bound is one variable per byte of file, which
// any real file meets; one more is refused.
func TestVariablesPerByte(t *testing.T) {
	size := uint64(len(hugeCuzkHeader(0, 0)))
	_, err := r1cs.Decode(hugeCuzkHeader(size-1, 0)) // 1 input + size-1 aux
	require.NoError(t, err)
	_, err = r1cs.Decode(hugeCuzkHeader(size, 0))
	require.ErrorContains(t, err, "variables declared")
}

// TestCircomConstraintCount: a constraint count the section cannot hold is
// refused before the constraints are read.
func TestCircomConstraintCount(t *testing.T) {
	b := hugeCircomHeader()
	binary.LittleEndian.PutUint32(b[24+4+32:], 10)           // wires
	binary.LittleEndian.PutUint32(b[24+4+32+24:], hugeCount) // constraints
	_, err := r1cs.DecodeCircomR1CS(b)
	require.ErrorContains(t, err, "cannot fit")
}

// TestReadersRefuseNonRegular: a FIFO (an open for reading blocks until a
// writer comes), a directory and a device are refused at once by every
// reader.
func TestReadersRefuseNonRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	cs := &r1cs.R1CS{NumInputs: 1}
	for _, path := range []string{fifo, t.TempDir(), "/dev/zero"} {
		for name, read := range map[string]func() error{
			"Open":              func() error { _, err := r1cs.Open(path); return err },
			"ReadFile":          func() error { _, err := r1cs.ReadFile(path); return err },
			"ReadCircomR1CS":    func() error { _, err := r1cs.ReadCircomR1CS(path); return err },
			"ReadCircomWitness": func() error { _, err := cs.ReadCircomWitness(path); return err },
		} {
			errc := make(chan error, 1)
			go func() { errc <- read() }()
			select {
			case err := <-errc:
				require.ErrorIs(t, err, fileio.ErrNotRegular, "%s(%s)", name, path)
			case <-time.After(10 * time.Second):
				t.Fatalf("%s(%s): still blocked after 10s", name, path)
			}
		}
	}
}
