package engine

import (
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestPrefaultMakesEveryPageResident: after prefault every page of a
// fresh buffer is in memory (the kernel's own count, mincore) and the
// buffer still reads as zeros; before it none is.
func TestPrefaultMakesEveryPageResident(t *testing.T) {
	const n = 3<<16 + 5 // 6 MiB and a part page: several chunks, a ragged end
	buf, err := mapElements(n)
	require.NoError(t, err)
	defer func() { require.NoError(t, unmapElements(buf)) }()
	b := unsafe.Slice((*byte)(unsafe.Pointer(&buf[0])), n*elemSize)
	resident := func() (in, all int) {
		vec := make([]byte, (len(b)+4095)/4096)
		_, _, errno := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0])))
		require.Zero(t, errno)
		for _, v := range vec {
			in += int(v & 1)
		}
		return in, len(vec)
	}
	in, _ := resident()
	require.Zero(t, in, "a fresh mapping has no page yet")
	prefault(buf)
	in, all := resident()
	require.Equal(t, all, in)
	for i := range buf {
		require.True(t, buf[i].IsZero(), "element %d", i)
	}
}
