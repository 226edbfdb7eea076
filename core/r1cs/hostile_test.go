package r1cs_test

import (
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/internal/fileio"
	"github.com/cuzk/cuzk/core/internal/filetest"
	"github.com/cuzk/cuzk/core/internal/r1cstest"
	"github.com/cuzk/cuzk/core/r1cs"
)

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
	circom := r1cstest.HugeCircomHeader()
	require.Len(t, circom, 264)
	for name, decode := range map[string]func() error{
		"circom": func() error { _, err := r1cs.DecodeCircomR1CS(circom); return err },
		"cuzk":   func() error { _, err := r1cs.Decode(r1cstest.HugeCuzkHeader(r1cstest.HugeCount-1, 0)); return err },
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
	size := uint64(len(r1cstest.HugeCuzkHeader(0, 0)))
	_, err := r1cs.Decode(r1cstest.HugeCuzkHeader(size-1, 0)) // 1 input + size-1 aux
	require.NoError(t, err)
	_, err = r1cs.Decode(r1cstest.HugeCuzkHeader(size, 0))
	require.ErrorContains(t, err, "variables declared")
}

// TestCircomConstraintCount: a constraint count the section cannot hold is
// refused before the constraints are read.
func TestCircomConstraintCount(t *testing.T) {
	b := r1cstest.HugeCircomHeader()
	binary.LittleEndian.PutUint32(b[24+4+32:], 10)                    // wires
	binary.LittleEndian.PutUint32(b[24+4+32+24:], r1cstest.HugeCount) // constraints
	_, err := r1cs.DecodeCircomR1CS(b)
	require.ErrorContains(t, err, "cannot fit")
}

// TestReadersRefuseNonRegular: a FIFO, a directory and a device are
// refused at once by every reader.
func TestReadersRefuseNonRegular(t *testing.T) {
	cs := &r1cs.R1CS{NumInputs: 1}
	for _, path := range filetest.NonRegular(t) {
		for name, read := range map[string]func() error{
			"Open":              func() error { _, err := r1cs.Open(path); return err },
			"ReadFile":          func() error { _, err := r1cs.ReadFile(path); return err },
			"ReadCircomR1CS":    func() error { _, err := r1cs.ReadCircomR1CS(path); return err },
			"ReadCircomWitness": func() error { _, err := cs.ReadCircomWitness(path); return err },
		} {
			err := filetest.Promptly(t, name+"("+path+")", read)
			require.ErrorIs(t, err, fileio.ErrNotRegular, "%s(%s)", name, path)
		}
	}
}
