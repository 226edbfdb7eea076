// Shared by the kernel files: error reporting into the caller's buffer (the
// ABI's "explicit error returns with messages, no exits or aborts") and the
// launch geometry.
#pragma once
#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdio.h>

namespace cuzk {

// fail formats a message into err (errlen bytes) and returns code.
static inline int fail(char* err, size_t errlen, int code, const char* fmt, ...) {
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

const int THREADS = 256;

static inline unsigned blocks(size_t n) { return (unsigned)((n + THREADS - 1) / THREADS); }

}  // namespace cuzk

// CKR returns from the enclosing function with a message on a CUDA error;
// the function has `char* err, size_t errlen` in scope.
#define CKR(call)                                                                                        \
    do {                                                                                                 \
        cudaError_t e_ = (call);                                                                         \
        if (e_ != cudaSuccess)                                                                           \
            return cuzk::fail(err, errlen, 2, "%s: %s (%s:%d)", #call, cudaGetErrorString(e_), __FILE__, \
                              __LINE__);                                                                 \
    } while (0)
