package cuda

import (
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend"
)

func TestErrorClassification(t *testing.T) {
	for _, c := range []struct {
		code   int
		cuda   int
		failed bool
	}{
		{1, 0, false},                   // a wrong argument
		{2, 0, false},                   // an internal check, no CUDA number
		{errCUDABase + 2, 2, false},     // cudaErrorMemoryAllocation: the call fails, the device stays
		{errCUDABase + 1, 1, false},     // cudaErrorInvalidValue
		{errCUDABase + 999, 999, false}, // cudaErrorUnknown: not known to be sticky
		{errCUDABase + 700, 700, true},  // cudaErrorIllegalAddress
		{errCUDABase + 719, 719, true},  // cudaErrorLaunchFailure
		{errCUDABase + 714, 714, true},  // cudaErrorHardwareStackError
		{errCUDABase + 715, 715, true},  // cudaErrorIllegalInstruction
		{errCUDABase + 716, 716, true},  // cudaErrorMisalignedAddress
		{errCUDABase + 717, 717, true},  // cudaErrorInvalidAddressSpace
		{errCUDABase + 718, 718, true},  // cudaErrorInvalidPc
		{errCUDABase + 214, 214, true},  // cudaErrorECCUncorrectable
		{errCUDABase + 710, 710, true},  // cudaErrorAssert
	} {
		// every one is named
		if c.cuda != 0 {
			require.NotContains(t, ErrorName(c.cuda), "cudaError ", "code %d", c.code)
		}
		err := error(&Error{Op: "msm", Msg: "what the library said", Code: c.code})
		var ce *Error
		require.True(t, errors.As(err, &ce))
		require.Equal(t, c.cuda, ce.CUDA(), "code %d", c.code)
		require.Equal(t, c.failed, errors.Is(err, backend.ErrDeviceFailed), "code %d", c.code)
		require.True(t, errors.Is(err, backend.ErrDevice), "code %d: a device error", c.code)
		require.Contains(t, err.Error(), "cuda: msm: what the library said")
		if c.cuda != 0 {
			require.Contains(t, err.Error(), ErrorName(c.cuda)+", CUDA error "+strconv.Itoa(c.cuda))
		}
		if c.failed {
			require.Contains(t, err.Error(), backend.ErrDeviceFailed.Error())
		} else {
			require.NotContains(t, err.Error(), backend.ErrDeviceFailed.Error())
		}
	}
}

// TestStickyMatchesHeader checks the sticky table against the CUDA
// runtime's own header: each number names the error the table says, and
// every error documented as requiring the process to be relaunched is in
// the table.
func TestStickyMatchesHeader(t *testing.T) {
	var text string
	for _, p := range []string{"/usr/local/cuda/include/driver_types.h", "/usr/include/driver_types.h"} {
		if b, err := os.ReadFile(p); err == nil {
			text = string(b)
			break
		}
	}
	if text == "" {
		t.Skip("no CUDA driver_types.h installed")
	}
	start := strings.Index(text, "enum __device_builtin__ cudaError")
	require.GreaterOrEqual(t, start, 0)
	body := text[start:]
	body = body[:strings.Index(body, "};")]
	member := regexp.MustCompile(`(?s)/\*\*(.*?)\*/\s*(cudaError\w+)\s*=\s*(\d+)`)
	header := map[int]string{}
	relaunch := map[int]string{}
	for _, m := range member.FindAllStringSubmatch(body, -1) {
		n, err := strconv.Atoi(m[3])
		require.NoError(t, err)
		header[n] = m[2]
		if strings.Contains(strings.Join(strings.Fields(strings.ReplaceAll(m[1], "*", " ")), " "), "must be terminated and relaunched") {
			relaunch[n] = m[2]
		}
	}
	require.NotEmpty(t, relaunch, "the header's wording changed")
	for n, name := range sticky {
		if got, ok := header[n]; ok { // absent: a code newer than this header (226 and 721: CUDA 12.8)
			require.Equal(t, name, got, "cudaError %d", n)
		}
	}
	for n, name := range relaunch {
		require.True(t, Sticky(n), "%s (%d) is documented as needing a relaunch", name, n)
	}
	require.Equal(t, "cudaErrorMemoryAllocation", header[2])
	require.False(t, Sticky(2))
	for n, name := range names {
		if got, ok := header[n]; ok {
			require.Equal(t, name, got, "cudaError %d", n)
		}
		require.False(t, Sticky(n), "%s is named among the errors that are not sticky", name)
	}
}
