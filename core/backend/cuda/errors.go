package cuda

import (
	"fmt"

	"github.com/cuzk/cuzk/core/backend"
)

// errCUDABase is cuzk_cuda.h's CUZK_CUDA_ERR_CUDA (checked in cuda.go): a
// return code of errCUDABase + e reports CUDA runtime error e.
const errCUDABase = 1000

// Error is a failure reported by libcuzk_cuda.so. It wraps
// backend.ErrDevice, and backend.ErrDeviceFailed too when the CUDA error
// behind it leaves the device's context unusable (Sticky), so that the
// engine takes the device out of service; any other failure (out of
// memory, a wrong argument) fails only the call.
type Error struct {
	Op   string // the library call, as "msm" or "ntt_h"
	Msg  string // the library's message
	Code int    // the library's return code (cuzk_cuda.h)
}

// CUDA returns the cudaError_t behind e, or 0 when the library kept none.
func (e *Error) CUDA() int {
	if e.Code > errCUDABase {
		return e.Code - errCUDABase
	}
	return 0
}

func (e *Error) Error() string {
	n := e.CUDA()
	switch {
	case n == 0:
		return fmt.Sprintf("cuda: %s: %s (code %d)", e.Op, e.Msg, e.Code)
	case Sticky(n):
		return fmt.Sprintf("cuda: %s: %s (%s, CUDA error %d: %v until the process restarts)", e.Op, e.Msg, ErrorName(n), n, backend.ErrDeviceFailed)
	default:
		return fmt.Sprintf("cuda: %s: %s (%s, CUDA error %d)", e.Op, e.Msg, ErrorName(n), n)
	}
}

// Unwrap returns backend.ErrDevice, and backend.ErrDeviceFailed for a
// sticky CUDA error.
func (e *Error) Unwrap() []error {
	if Sticky(e.CUDA()) {
		return []error{backend.ErrDevice, backend.ErrDeviceFailed}
	}
	return []error{backend.ErrDevice}
}

// names are the cudaError_t values a call may meet besides the sticky
// ones, by driver_types.h's names (the test checks them against the
// installed header).
var names = map[int]string{
	1:   "cudaErrorInvalidValue",
	2:   "cudaErrorMemoryAllocation",
	3:   "cudaErrorInitializationError",
	4:   "cudaErrorCudartUnloading",
	35:  "cudaErrorInsufficientDriver",
	46:  "cudaErrorDevicesUnavailable",
	98:  "cudaErrorInvalidDeviceFunction",
	100: "cudaErrorNoDevice",
	101: "cudaErrorInvalidDevice",
	200: "cudaErrorInvalidKernelImage",
	209: "cudaErrorNoKernelImageForDevice",
	222: "cudaErrorUnsupportedPtxVersion",
	400: "cudaErrorInvalidResourceHandle",
	500: "cudaErrorSymbolNotFound",
	600: "cudaErrorNotReady",
	701: "cudaErrorLaunchOutOfResources",
	712: "cudaErrorHostMemoryAlreadyRegistered",
	713: "cudaErrorHostMemoryNotRegistered",
	999: "cudaErrorUnknown",
}

// ErrorName is cudaError_t n's name ("cudaErrorMemoryAllocation"), or
// "cudaError n" for one this package does not name.
func ErrorName(n int) string {
	if s, ok := sticky[n]; ok {
		return s
	}
	if s, ok := names[n]; ok {
		return s
	}
	return fmt.Sprintf("cudaError %d", n)
}

// sticky lists the cudaError_t values after which CUDA's documentation
// (driver_types.h) says the process is "in an inconsistent state and any
// further CUDA work will return the same error" or that "the process must
// be terminated and relaunched", and the uncorrectable hardware errors: a
// device that met one can do no more work in this process. The test checks
// the numbers against the installed header.
var sticky = map[int]string{
	214: "cudaErrorECCUncorrectable",
	220: "cudaErrorNvlinkUncorrectable",
	226: "cudaErrorContained", // CUDA 12.8 on (the H200 machine's nvcc 13.0)
	700: "cudaErrorIllegalAddress",
	702: "cudaErrorLaunchTimeout",
	710: "cudaErrorAssert",
	714: "cudaErrorHardwareStackError",
	715: "cudaErrorIllegalInstruction",
	716: "cudaErrorMisalignedAddress",
	717: "cudaErrorInvalidAddressSpace",
	718: "cudaErrorInvalidPc",
	719: "cudaErrorLaunchFailure",
	721: "cudaErrorTensorMemoryLeak", // CUDA 12.8 on
	810: "cudaErrorMpsClientTerminated",
	911: "cudaErrorExternalDevice",
}

// Sticky reports whether CUDA error n leaves the device unusable for the
// rest of the process. cudaErrorMemoryAllocation (2) and argument errors
// do not.
func Sticky(n int) bool {
	_, ok := sticky[n]
	return ok
}
