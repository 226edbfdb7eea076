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

#include <algorithm>
#include <atomic>
#include <mutex>
#include <unordered_map>

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

// The device's options (cuzk_cuda_set_options; defaults: no cap, the MSM
// pool on, windows and passes sized by the MSM) and its memory count: every
// allocation cuzk makes on a device goes through dev_malloc / dev_free or
// pooled_malloc, which keep `used` (cudaMalloc'd bytes, counted in the 2 MiB
// pages the driver maps) and refuse an allocation that would take `used` plus
// the pool's reserved bytes past max_device_memory.
struct device_state {
    std::mutex mu;
    cuzk_cuda_options opt{0, 0, 0, 1, 0, 0};
    size_t used = 0, peak = 0;
    std::unordered_map<void*, size_t> sizes;
};

static const int MAX_DEVICES = 64;

// force_branch_convert makes every MSM's accumulation take the path it
// takes when its XYZZ piece sums get no buffer (k_subsum converting in its
// branch, msm.cuh's pass_accumulate): set by the bench build's
// cuzk_cuda_bench_force_branch_convert, so that a test checks that path
// (read in a bench build only: a release build's MSMs never look).
inline std::atomic<int> force_branch_convert{0};

// refuse_pass_scratch is how many MSM passes of more than one window are
// still to be refused as if their scratch had been (after their sort, as
// an allocation refused by the cap mid-pass): set by the bench build's
// cuzk_cuda_bench_refuse_pass_scratch, so that a test checks the pass's
// retry with half its windows (read in a bench build only).
inline std::atomic<int> refuse_pass_scratch{0};

// One state a device for the whole library: an inline function with
// external linkage has one static local across translation units (static
// inline would give each .cu file its own count and options).
inline device_state& state(int dev) {
    static device_state all[MAX_DEVICES];
    return all[(unsigned)dev % MAX_DEVICES];
}

static inline int current_device() {
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return dev;
}

// options returns a copy of the current device's options.
static inline cuzk_cuda_options options() {
    device_state& s = state(current_device());
    std::lock_guard<std::mutex> g(s.mu);
    return s.opt;
}

// An MSM's scratch comes from the device's stream-ordered pool, which keeps
// freed memory for the next MSM instead of handing it back to the driver
// (at 2^24 the frees of ~8.6 GB of scratch measured ~3-4 ms an MSM: G1 MSM
// 2^24 141.7 → 135.3 ms on the H200, cuda/DESIGN.md). The other allocations
// (dev_malloc) trim the pool and try again when the device is out of memory,
// and the MSM's pass sizing counts the pool's idle bytes as free. msm_pool =
// 0 hands every MSM's scratch back (a GPU shared with other processes).
static inline bool msm_pool() { return options().msm_pool != 0; }

// The current device's default pool, set once to keep what is freed into
// it.
static inline cudaMemPool_t device_pool() {
    static std::atomic<bool> kept[MAX_DEVICES];
    int dev = 0;
    cudaMemPool_t pool = nullptr;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetDefaultMemPool(&pool, dev) != cudaSuccess) {
        cudaGetLastError();
        return nullptr;
    }
    if (dev < 0 || dev >= MAX_DEVICES || !kept[dev].exchange(true)) {
        uint64_t keep = UINT64_MAX;
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    return pool;
}

// The pool's reserved and in-use bytes (0, 0 when unknown).
static inline void pool_bytes(uint64_t* reserved, uint64_t* used) {
    *reserved = *used = 0;
    cudaMemPool_t pool = device_pool();
    if (!pool || cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, reserved) != cudaSuccess ||
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, used) != cudaSuccess) {
        cudaGetLastError();
        *reserved = *used = 0;
    }
}

// Bytes the pool holds without a user (0 with the pool off).
static inline size_t pool_idle() {
    if (!msm_pool()) return 0;
    uint64_t reserved, used;
    pool_bytes(&reserved, &used);
    return reserved > used ? (size_t)(reserved - used) : 0;
}

// trim_pool hands the pool's idle memory back after the work queued on the
// device (whose frees return memory to it).
static inline void trim_pool() {
    cudaDeviceSynchronize();
    if (cudaMemPool_t pool = device_pool()) cudaMemPoolTrimTo(pool, 0);
    cudaGetLastError();
}

// pages is n rounded up to the driver's 2 MiB pages (small allocations
// share pages: counted as they are).
static inline size_t pages(size_t n) {
    const size_t P = 2u << 20;
    return n >= P / 2 ? (n + P - 1) / P * P : n;
}

// held is what cuzk holds on device dev: its cudaMalloc'd bytes and the
// pool's reservation (into *pool_reserved too when given: the same
// reading). Called with s.mu held.
static inline size_t held_locked(device_state& s, uint64_t* pool_reserved = nullptr) {
    uint64_t reserved, used;
    pool_bytes(&reserved, &used);
    if (pool_reserved) *pool_reserved = reserved;
    return s.used + (size_t)reserved;
}

// cap_note is this thread's account of its last allocation refused by the
// cap ("" when the last one was not): CKR and CK add it to an
// out-of-memory error's message, so that a refusal reads as the cap's, with
// its numbers, and not as the device's. One buffer for the whole library
// (an inline function with external linkage).
inline char* cap_note() {
    static thread_local char note[160];
    return note;
}

// cap_note_for is the note for error e, consumed: a later out-of-memory
// error of another call on this thread does not repeat it.
inline const char* cap_note_for(cudaError_t e) {
    static thread_local char shown[160];
    if (e != cudaErrorMemoryAllocation) return "";
    char* note = cap_note();
    memcpy(shown, note, sizeof shown);
    note[0] = 0;
    return shown;
}

static inline void note_refusal(size_t held, size_t n, size_t cap) {
    snprintf(cap_note(), 160, " (over gpus.max_device_memory: %.1f MiB held, %.1f MiB asked, cap %.1f MiB)",
             held / 1048576.0, n / 1048576.0, cap / 1048576.0);
}

// admit reserves n bytes of the cap for the caller (true), trimming the
// pool once when that makes room; false: over the cap.
static inline bool admit(device_state& s, size_t n) {
    cap_note()[0] = 0;
    for (int round = 0;; round++) {
        {
            std::lock_guard<std::mutex> g(s.mu);
            const size_t cap = s.opt.max_device_memory;
            if (!cap || held_locked(s) + n <= cap) {
                s.used += n;
                s.peak = std::max(s.peak, held_locked(s));
                return true;
            }
            if (round > 0) {
                note_refusal(held_locked(s), n, cap);
                return false;
            }
        }
        // Trimmed without the lock: the device drains first, and the other
        // threads' calls on it must not wait for that.
        trim_pool();
    }
}

// cudaMalloc within the cap, retried once after the pool's idle memory is
// handed back; dev_free frees what it allocated.
static inline cudaError_t dev_malloc(void** p, size_t n) {
    device_state& s = state(current_device());
    const size_t counted = pages(n);
    if (!admit(s, counted)) return cudaErrorMemoryAllocation;
    cudaError_t e = cudaMalloc(p, n);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        trim_pool();
        e = cudaMalloc(p, n);
    }
    std::lock_guard<std::mutex> g(s.mu);
    if (e != cudaSuccess) {
        cudaGetLastError();
        s.used -= counted;
        *p = nullptr;
        return e;
    }
    s.sizes[*p] = counted;
    return e;
}
template <class T>
static inline cudaError_t dev_malloc(T** p, size_t n) {
    return dev_malloc(reinterpret_cast<void**>(p), n);
}

static inline void dev_free(void* p) {
    if (!p) return;
    device_state& s = state(current_device());
    {
        // Uncounted before the free: once freed, another thread's
        // dev_malloc may get the same address and count it anew.
        std::lock_guard<std::mutex> g(s.mu);
        auto it = s.sizes.find(p);
        if (it != s.sizes.end()) {
            s.used -= it->second;
            s.sizes.erase(it);
        }
    }
    cudaFree(p);
}

// pooled_malloc takes n bytes from the pool, ordered on stream 0, within
// the cap: the pool's reservation after the allocation is what counts.
static inline cudaError_t pooled_malloc(void** p, size_t n) {
    device_state& s = state(current_device());
    const size_t cap = options().max_device_memory;
    cap_note()[0] = 0;
    if (cap) {
        for (int round = 0;; round++) {
            {
                std::lock_guard<std::mutex> g(s.mu);
                uint64_t reserved, used;
                pool_bytes(&reserved, &used);
                if (s.used + std::max<size_t>(reserved, used + n) <= cap) break;
                if (round > 0 && s.used + used + n > cap) {
                    note_refusal(s.used + used, n, cap);
                    return cudaErrorMemoryAllocation;
                }
                if (round > 0) break;  // trimmed: the pool's reservation grows into the room
            }
            trim_pool();  // without the lock, as in admit
        }
    }
    cudaError_t e = cudaMallocAsync(p, n, 0);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return e;
    }
    std::lock_guard<std::mutex> g(s.mu);
    const size_t h = held_locked(s);
    if (cap && h > cap) {  // the pool rounded its reservation past the cap
        note_refusal(h - n, n, cap);
        cudaFreeAsync(*p, 0);
        *p = nullptr;
        trim_pool();
        return cudaErrorMemoryAllocation;
    }
    s.peak = std::max(s.peak, h);
    return cudaSuccess;
}

// available is the device memory an MSM may plan its scratch in: the
// driver's free bytes plus the pool's idle ones, within the cap.
static inline size_t available() {
    size_t freeb = 0, total = 0;
    if (cudaMemGetInfo(&freeb, &total) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    size_t idle = pool_idle(), a = freeb + idle;
    device_state& s = state(current_device());
    std::lock_guard<std::mutex> g(s.mu);
    const size_t cap = s.opt.max_device_memory, h = held_locked(s);
    if (cap) a = std::min(a, (cap > h ? cap - h : 0) + idle);
    return a;
}

// Phase timing on the default stream, printed to stderr as "<what> phases:
// ..." when the profile option is set (the bench drivers use it to see where
// an MSM's or h's time goes).
struct phases {
    const char* what;
    bool on = options().profile != 0;
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
// the function has `char* err, size_t errlen` in scope. The runtime's last
// error is cleared, so that a failure that leaves the device usable (an
// allocation, host memory already registered) does not resurface in the
// next call's cudaGetLastError().
#define CKR(call)                                                                                        \
    do {                                                                                                 \
        cudaError_t e_ = (call);                                                                         \
        if (e_ != cudaSuccess && (cudaGetLastError(), true))                                             \
            return cuzk::fail(err, errlen, cuzk::cuda_code(e_), "%s: %s%s (%s:%d)", #call, cudaGetErrorString(e_), \
                              cuzk::cap_note_for(e_), __FILE__, __LINE__);                               \
    } while (0)

// CK is CKR for a function that cleans up at a label: on a CUDA error it
// sets rc and jumps to `done` (the function has `int rc` and `char* err,
// size_t errlen` in scope). CKLAUNCH checks the last kernel launch.
#define CK(call)                                                                                 \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            cudaGetLastError(); /* a non-sticky error must not fail the next call */             \
            rc = cuzk::fail(err, errlen, cuzk::cuda_code(e_), "%s: %s%s (%s:%d)", #call, cudaGetErrorString(e_), \
                            cuzk::cap_note_for(e_), __FILE__, __LINE__);                                 \
            goto done;                                                                           \
        }                                                                                        \
    } while (0)

#define CKLAUNCH() CK(cudaGetLastError())
