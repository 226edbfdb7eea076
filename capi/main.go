// Command capi is libcuzk.so: the C ABI of cuzk, built with
// go build -buildmode=c-shared. It only marshals C values to and from
// package service, maps errors to status codes and recovers panics, so that
// no Go panic ever crosses into the host. The headers are hand-written in
// include/ (cuzk.h, supraseal_c2.h).
package main

/*
#cgo CFLAGS: -I${SRCDIR}/../include
#cgo LDFLAGS: -ldl
#define _GNU_SOURCE
#define CUZK_NO_PROTOTYPES
#include <stdlib.h>
#include <string.h>
#include "cuzk.h"
#include "supraseal_c2.h"

// The host may define set_membw_throttle; a weak reference resolves to
// NULL when it does not.
extern void set_membw_throttle(int) __attribute__((weak));
static inline void cuzk_host_throttle(int v) { if (set_membw_throttle) set_membw_throttle(v); }
static inline int cuzk_host_has_throttle(void) { return set_membw_throttle != 0; }

#include <dlfcn.h>
// The directory of this library, to find libcuzk_cuda.so beside it.
static inline const char* cuzk_self_path(void) {
	Dl_info info;
	if (dladdr((void*)cuzk_self_path, &info) && info.dli_fname) return info.dli_fname;
	return 0;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"
	"unsafe"

	"go.uber.org/automaxprocs/maxprocs"

	"github.com/cuzk/cuzk/core/service"
)

// Version is the library version.
const Version = "0.1.0"

var (
	svcOnce sync.Once
	svc     *service.Service
)

// get returns the process-wide service, created on first use.
func get() *service.Service {
	svcOnce.Do(func() {
		_, _ = maxprocs.Set(maxprocs.Logger(func(string, ...any) {}))
		svc = service.New(libLog(), cudaSearch())
		svc.SetVersion(Version)
		if libLevel.follow {
			svc.FollowLogLevel(libLevel.v)
		}
		svc.FollowLogFormat(libHandler.SetFormat)
		svc.SetDefaultRecordDir(recordDir())
		if C.cuzk_host_has_throttle() != 0 {
			svc.Throttle().OnChange(func(raised bool) {
				v := C.int(0)
				if raised {
					v = 1
				}
				C.cuzk_host_throttle(v)
			})
		}
	})
	return svc
}

func main() {}

// libLog is the library's logger (stderr, at libLevel): the service logs
// through it, and guard logs a recovered panic's stack to it.
var libLog = sync.OnceValue(func() *slog.Logger {
	return slog.New(libHandler)
})

// libHandler writes the library's log in logging.format (text until a
// configuration says json).
var libHandler = service.NewLogHandler(os.Stderr, &slog.HandlerOptions{Level: libLevel.v})

// libLevel is the level of the library's log.
var libLevel = newLogLevel(os.Getenv("CUZK_LOG_LEVEL"))

// installPrefix is the prefix make install puts the libraries under
// (-ldflags -X main.installPrefix=...).
var installPrefix = "/usr/local"

// cudaSearch is where the service looks for libcuzk_cuda.so when a
// configuration names none (service.CUDASearch): CUZK_CUDA_LIB, beside this
// library (dladdr), beside the host's executable and in its ../build and
// ../lib, under the install prefix, then the loader's path.
func cudaSearch() service.CUDASearch {
	self := ""
	if p := C.cuzk_self_path(); p != nil {
		self = absPath(C.GoString(p))
	}
	exe, _ := os.Executable()
	return service.CUDASearch{Env: os.Getenv("CUZK_CUDA_LIB"), Dirs: service.CUDADirs(self, absPath(exe), installPrefix), Loader: true}
}

// absPath resolves p's links and makes it absolute ("" when it cannot).
func absPath(p string) string {
	if p == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	a, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	return a
}

// recordDir is where parameter validations are remembered when the
// configuration names no directory: the platform cache directory, or none
// (every load checked) where there is none.
func recordDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "cuzk")
	}
	return ""
}

// errPanic marks a recovered panic.
var errPanic = errors.New("internal error")

// toC converts err into a cuzk_error (message malloc'ed).
func toC(err error) C.cuzk_error {
	if err == nil {
		return C.cuzk_error{}
	}
	code := service.CodeOf(err)
	if errors.Is(err, errPanic) {
		code = service.Internal
	}
	return C.cuzk_error{code: C.int32_t(code), message: C.CString(err.Error())}
}

// guard runs fn and turns a panic into an internal error. The host gets
// the panic's value only; the stack, with its source paths, goes to the
// library's log at error level, where an operator reporting the bug finds it.
func guard(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			libLog().Error("cuzk: recovered a panic (please report)", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			err = fmt.Errorf("cuzk: %w (please report): %v", errPanic, r)
		}
	}()
	return fn()
}

func invalid(format string, args ...any) error {
	return &service.Error{Code: service.InvalidArgument, Err: fmt.Errorf("cuzk: "+format, args...)}
}

// Bounds on the counts a host passes, checked before any of its memory is
// read or any buffer sized from them.
const (
	// maxPartitions bounds num_partitions, num_circuits, num_proofs and the
	// proofs given to cuzk_verify: a Filecoin proof has at most 10
	// partitions; 2^16 leaves room for batching without letting a wrong
	// count size an array (and keeps 384·n far from overflow).
	maxPartitions = 1 << 16
	// maxVariables is r1cs's limit on inputs + aux (columns are uint32 and
	// the prover indexes them as int32).
	maxVariables = 1 << 31
	// maxConstraints: BLS12-381's scalar field has 2-adicity 32, so no
	// evaluation domain (constraints + inputs, rounded up to a power of
	// two) has more than 2^32 points.
	maxConstraints = 1 << 32
	// maxTerms bounds a matrix's non-zero terms; with at most one term per
	// variable in a row it is also at most num_constraints · variables.
	// 2^32 terms are 128 GiB of coefficients: beyond any circuit Filecoin
	// proves (the largest has about 2^27 constraints), and 32·maxTerms
	// cannot overflow.
	maxTerms = 1 << 32
)

// count checks a host count against limit; the message names the argument.
func count(what string, v C.size_t, limit uint64) (int, error) {
	if uint64(v) > limit {
		return 0, invalid("%s %d is more than %d", what, uint64(v), limit)
	}
	return int(v), nil
}

// checkFlags refuses bits outside known; the message names the argument.
func checkFlags(what string, flags C.uint32_t, known uint32) error {
	if uint32(flags)&^known != 0 {
		return invalid("%s %#x has unknown bits %#x", what, uint32(flags), uint32(flags)&^known)
	}
	return nil
}

// durationMS converts a host timeout in milliseconds, saturating: a value
// beyond what time.Duration holds (2^63-1 ns, about 292 years) becomes
// that maximum, which is no deadline in practice; it never wraps.
func durationMS(ms C.uint64_t) time.Duration {
	if uint64(ms) > uint64(math.MaxInt64/time.Millisecond) {
		return math.MaxInt64
	}
	return time.Duration(ms) * time.Millisecond
}

// goString copies a C string; NULL is an error naming the argument.
func goString(s *C.char, what string) (string, error) {
	if s == nil {
		return "", invalid("%s is NULL", what)
	}
	return C.GoString(s), nil
}

// bytesAt views n bytes of C memory (no copy).
func bytesAt(p unsafe.Pointer, n C.size_t) []byte {
	if p == nil || n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p), int(n))
}

// cBytes copies b into malloc'ed memory.
func cBytes(b []byte) *C.uint8_t {
	p := C.malloc(C.size_t(max(1, len(b))))
	C.memcpy(p, unsafe.Pointer(unsafe.SliceData(b)), C.size_t(len(b)))
	return (*C.uint8_t)(p)
}

// logLevel is the level of the library's log on stderr: env (the value of
// CUZK_LOG_LEVEL: debug, info, warn, error) when it is one, fixed; else
// warn until the host configures the library, then logging.level of each
// configuration (follow). Hosts such as bellperson never configure the
// library, so warn keeps their stderr quiet, and the variable is how an
// operator asks for the per-partition timeline (debug) whatever the host
// configures.
type logLevel struct {
	v      *slog.LevelVar
	follow bool
}

func newLogLevel(env string) logLevel {
	l := logLevel{v: new(slog.LevelVar)}
	l.v.Set(slog.LevelWarn)
	var fixed slog.Level
	if env == "" || fixed.UnmarshalText([]byte(env)) != nil {
		l.follow = true
		return l
	}
	l.v.Set(fixed)
	return l
}

// cUint64 converts for the tests, which cannot name C types.
func cUint64(v uint64) C.uint64_t { return C.uint64_t(v) }
