// Shared by the kernel files: error reporting into the caller's buffer (the
// ABI's "explicit error returns with messages, no exits or aborts") and the
// launch geometry.
#pragma once
#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>

#include "cuzk_cuda.h"

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

// cuda_code is the return code of a failure caused by CUDA error e
// (cuzk_cuda.h's CUZK_CUDA_ERR_CUDA + e): the caller decides from e whether
// the device can still be used.
static inline int cuda_code(cudaError_t e) { return CUZK_CUDA_ERR_CUDA + (int)e; }

// An MSM's scratch comes from the device's stream-ordered pool, which keeps
// freed memory for the next MSM instead of handing it back to the driver
// (at 2^24 the frees of ~8.6 GB of scratch measured ~3-4 ms an MSM; the
// default since session 5: G1 MSM 2^24 141.7 → 135.3 ms on the H200,
// cuda/NOTES.md). The other allocations (dev_malloc) trim the pool and try
// again when the device is out of memory, and the MSM's pass sizing counts
// the pool's idle bytes as free. CUZK_CUDA_MSM_POOL=0 (read once; any other
// value keeps the pool) turns it off: every MSM then hands its scratch back
// (a GPU shared with other processes).
static inline bool msm_pool() {
    static const bool on = [] {
        const char* e = getenv("CUZK_CUDA_MSM_POOL");
        return !(e && strcmp(e, "0") == 0);
    }();
    return on;
}

// The current device's default pool, set once to keep what is freed into
// it.
static inline cudaMemPool_t device_pool() {
    static std::atomic<bool> kept[64];
    int dev = 0;
    cudaMemPool_t pool = nullptr;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetDefaultMemPool(&pool, dev) != cudaSuccess) {
        cudaGetLastError();
        return nullptr;
    }
    if (dev < 0 || dev >= 64 || !kept[dev].exchange(true)) {
        uint64_t keep = UINT64_MAX;
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    return pool;
}

// Bytes the pool holds without a user (0 with CUZK_CUDA_MSM_POOL=0).
static inline size_t pool_idle() {
    if (!msm_pool()) return 0;
    cudaMemPool_t pool = device_pool();
    uint64_t reserved = 0, used = 0;
    if (!pool || cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) != cudaSuccess ||
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return reserved > used ? (size_t)(reserved - used) : 0;
}

// cudaMalloc, retried once after the pool's idle memory is handed back.
static inline cudaError_t dev_malloc(void** p, size_t n) {
    cudaError_t e = cudaMalloc(p, n);
    if (e != cudaErrorMemoryAllocation || !msm_pool()) return e;
    cudaGetLastError();
    cudaDeviceSynchronize();  // frees still queued on the stream reach the pool
    if (cudaMemPool_t pool = device_pool()) cudaMemPoolTrimTo(pool, 0);
    return cudaMalloc(p, n);
}
template <class T>
static inline cudaError_t dev_malloc(T** p, size_t n) {
    return dev_malloc(reinterpret_cast<void**>(p), n);
}

// Phase timing on the default stream, printed to stderr as "<what> phases:
// ..." when CUZK_CUDA_PROFILE is set (the bench drivers use it to see where
// an MSM's or h's time goes).
struct phases {
    const char* what;
    bool on = getenv("CUZK_CUDA_PROFILE") != nullptr;
    cudaEvent_t ev[16];
    const char* name[16];
    int k = 0;
    explicit phases(const char* w) : what(w) {}
    void mark(const char* step) {
        if (!on || k >= 16) return;
        cudaEventCreate(&ev[k]);
        cudaEventRecord(ev[k]);
        name[k++] = step;
    }
    ~phases() {
        if (!on || k < 2) return;
        cudaEventSynchronize(ev[k - 1]);
        fprintf(stderr, "%s phases:", what);
        for (int i = 1; i < k; i++) {
            float ms = 0;
            cudaEventElapsedTime(&ms, ev[i - 1], ev[i]);
            fprintf(stderr, " %s %.2f ms;", name[i], ms);
        }
        fprintf(stderr, "\n");
        for (int i = 0; i < k; i++) cudaEventDestroy(ev[i]);
    }
};

const int THREADS = 256;

static inline unsigned blocks(size_t n) { return (unsigned)((n + THREADS - 1) / THREADS); }

}  // namespace cuzk

// CKR returns from the enclosing function with a message on a CUDA error;
// the function has `char* err, size_t errlen` in scope.
#define CKR(call)                                                                                        \
    do {                                                                                                 \
        cudaError_t e_ = (call);                                                                         \
        if (e_ != cudaSuccess)                                                                           \
            return cuzk::fail(err, errlen, cuzk::cuda_code(e_), "%s: %s (%s:%d)", #call, cudaGetErrorString(e_), __FILE__, \
                              __LINE__);                                                                 \
    } while (0)
