package units

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBytes checks figures worked out by hand: 14665216 B = 13.99 MiB,
// 19440784 KiB = 18.54 GiB, 1023.7 KiB rounds up to 1 MiB.
func TestBytes(t *testing.T) {
	for n, want := range map[uint64]string{
		0: "0 B", 1023: "1023 B", 1024: "1 KiB", 1536: "1.5 KiB", 10 * 1024: "10 KiB",
		14665216: "14 MiB", 19440784 << 10: "18.5 GiB", 34541976: "32.9 MiB",
		1048275: "1 MiB", 1000 << 20: "1000 MiB", 3 << 30: "3 GiB", 1 << 50: "1 PiB",
		1<<64 - 1: "16 EiB",
	} {
		require.Equal(t, want, Bytes(n), "%d", n)
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 1234: "1.23µs", 450 * time.Millisecond: "450ms", 12345 * time.Microsecond: "12.3ms",
		1234567890: "1.23s", 12345 * time.Millisecond: "12.3s", 123 * time.Second: "2m3s",
		694*time.Hour + 51*time.Minute + 13*time.Second + 400*time.Millisecond: "694h51m13s",
		-1500 * time.Millisecond: "-1.5s",
	} {
		require.Equal(t, want, Duration(d), "%d", int64(d))
	}
}
