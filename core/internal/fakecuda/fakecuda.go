// Package fakecuda builds a fake libcuzk_cuda.so for the tests
// (testdata/fake_cuda.c): one device that takes every call of cuda/cuzk_cuda.h,
// computes nothing, and fails the calls that CUZK_FAKE_CUDA_FAIL names
// with the codes it gives, so that the handling of CUDA errors (out of
// memory, sticky errors) can be tested on a machine without a GPU.
package fakecuda

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// FailEnv is the variable the fake reads at each call: "op=code,...",
// op a call's name less its cuzk_cuda_ prefix ("*" for every call), code
// its return code (1000 + a cudaError_t: 1002 out of memory, 1700 an
// illegal address).
const FailEnv = "CUZK_FAKE_CUDA_FAIL"

// Build compiles the fake into a temporary directory of t and returns its
// path; the test is skipped without a C compiler.
func Build(t testing.TB) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler (cc) for the fake CUDA library")
	}
	_, self, _, _ := runtime.Caller(0)
	dir := filepath.Dir(self)
	out := filepath.Join(t.TempDir(), "libcuzk_cuda.so")
	src := filepath.Join(dir, "testdata", "fake_cuda.c")
	cmd := exec.Command(cc, "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC",
		"-I", filepath.Join(dir, "..", "..", "..", "cuda"), "-o", out, src)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the fake CUDA library: %v\n%s", err, b)
	}
	return out
}
