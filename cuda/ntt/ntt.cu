// Radix-2 NTTs over Fr and Groth16's quotient h, natural order in and out.
// One launch per butterfly stage after a bit-reversal permutation; the
// domain constants come from the caller (cuzk_cuda.h). Correct first: the
// tests compare every output element with the CPU backend.
#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mutex>
#include <vector>

#include "util/common.cuh"
#include "cuzk_cuda.h"
#include "field/field.cuh"
#include "ntt/h.cuh"
#include "util/staging.cuh"

namespace {

struct consts_t {
    fr_t omega, omega_inv, n_inv, g, g_inv, z_inv;
};

using cuzk::blocks;
using cuzk::fail;
using cuzk::THREADS;

#define CK(call)                                                                                 \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            cudaGetLastError(); /* a non-sticky error must not fail the next call */             \
            rc = fail(err, errlen, cuzk::cuda_code(e_), "%s: %s (%s:%d)", #call, cudaGetErrorString(e_), __FILE__, __LINE__); \
            goto done;                                                                           \
        }                                                                                        \
    } while (0)

#define CKLAUNCH() CK(cudaGetLastError())

// one in Montgomery form: R mod r
__device__ __forceinline__ fr_t fr_one() {
    fr_t o;
    const uint32_t R[8] = {0xfffffffeu, 0x00000001u, 0x00034802u, 0x5884b7fau,
                           0xecbc4ff5u, 0x998c4fefu, 0xacc5056fu, 0x1824b159u};
#pragma unroll
    for (int i = 0; i < 8; i++) o.v[i] = R[i];
    return o;
}

__global__ void k_twiddles(fr_t* tw, size_t half, fr_t w) {
    size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k < half) tw[k] = fr_pow(w, k, fr_one());
}

__global__ void k_bitrev(fr_t* x, size_t n, int logn) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    size_t j = __brevll((unsigned long long)i) >> (64 - logn);
    if (i < j) {
        fr_t t = x[i];
        x[i] = x[j];
        x[j] = t;
    }
}

// One DIT stage: butterflies of half-size m, twiddle stride n/(2m).
__global__ void k_stage(fr_t* x, size_t n, size_t m, const fr_t* tw) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n / 2) fr_radix2(x, n, m, tw, i);
}

// Two DIT stages (half-sizes m and 2m) in one pass (field.cuh fr_radix4):
// 12 passes instead of 24 at 2^24, where the stages are bound by the
// device's bandwidth (NTT 2^24 8.35 → 6.16 ms on the H200 against one stage
// a pass, cuda/NOTES.md); k_stage takes the last stage of an odd count.
__global__ void k_stage4(fr_t* x, size_t n, size_t m, const fr_t* tw) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n / 4) fr_radix4(x, n, m, tw, i);
}

// x[i] *= base^i · c (use_pow: coset shifts) or c (scalings). Each of the
// T threads scales the POW_RUN elements t, t + T, t + 2T, ... (coalesced),
// starting from base^t · c and stepping by base^T: ~4 products an element
// instead of the ~37 of a square-and-multiply per element (at 2^24 those
// are ~3-6 ms of products a coset scaling by counting, and h has four).
const size_t POW_RUN = 32;

__global__ void k_powscale(fr_t* x, size_t n, size_t T, fr_t base, fr_t c, int use_pow) {
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t < T) fr_powscale_run(x, n, T, t, base, c, use_pow != 0, fr_one());
}

// k_powscale over all of x.
void powscale(fr_t* x, size_t n, const fr_t& base, const fr_t& c, int use_pow) {
    const size_t T = (n + POW_RUN - 1) / POW_RUN;
    k_powscale<<<blocks(T), THREADS>>>(x, n, T, base, c, use_pow);
}

__global__ void k_h_pointwise(fr_t* a, const fr_t* b, const fr_t* c, size_t n, fr_t z_inv) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    a[i] = fr_mul(fr_sub(fr_mul(a[i], b[i]), c[i]), z_inv);
}

int log2_exact(size_t n) {
    int k = 0;
    while (((size_t)1 << k) < n) k++;
    return ((size_t)1 << k) == n ? k : -1;
}

// The NTT on device memory. tw and twi are the twiddle tables (n/2 each).
int ntt_device(fr_t* x, size_t n, int logn, int inverse, int coset, const consts_t& k, const fr_t* tw,
               const fr_t* twi, char* err, size_t errlen) {
    int rc = 0;
    size_t m = 1;  // the next stage's half-size
    // one in Montgomery form (R mod r), for a scaling by base^i alone
    const uint32_t R[8] = {0xfffffffeu, 0x00000001u, 0x00034802u, 0x5884b7fau,
                           0xecbc4ff5u, 0x998c4fefu, 0xacc5056fu, 0x1824b159u};
    fr_t one;
    memcpy(one.v, R, sizeof R);
    if (!inverse && coset) {
        powscale(x, n, k.g, one, 1);
        CKLAUNCH();
    }
    k_bitrev<<<blocks(n), THREADS>>>(x, n, logn);
    CKLAUNCH();
    while (m < n) {
        if (2 * m < n) {  // two stages a pass
            k_stage4<<<blocks(n / 4), THREADS>>>(x, n, m, inverse ? twi : tw);
            m <<= 2;
        } else {
            k_stage<<<blocks(n / 2), THREADS>>>(x, n, m, inverse ? twi : tw);
            m <<= 1;
        }
        CKLAUNCH();
    }
    if (inverse) {
        powscale(x, n, k.g_inv, k.n_inv, coset);
        CKLAUNCH();
    }
done:
    return rc;
}

// Twiddle tables (n/2 powers of omega and of its inverse) per device and
// size, computed once and kept: n·32 bytes of device memory a size.
struct twiddles {
    int dev;
    size_t n;
    fr_t omega;
    fr_t* tw;
    fr_t* twi;
};

int get_twiddles(int dev, size_t n, const consts_t& k, const fr_t** tw, const fr_t** twi, char* err, size_t errlen) {
    static std::mutex mu;
    static std::vector<twiddles> cache;
    std::lock_guard<std::mutex> g(mu);
    for (auto& t : cache)
        if (t.dev == dev && t.n == n && memcmp(&t.omega, &k.omega, sizeof(fr_t)) == 0) {
            *tw = t.tw;
            *twi = t.twi;
            return 0;
        }
    int rc = 0;
    size_t half = n / 2 ? n / 2 : 1;
    twiddles t{dev, n, k.omega, nullptr, nullptr};
    CK(cuzk::dev_malloc(&t.tw, half * sizeof(fr_t)));
    CK(cuzk::dev_malloc(&t.twi, half * sizeof(fr_t)));
    k_twiddles<<<blocks(half), THREADS>>>(t.tw, half, k.omega);
    CKLAUNCH();
    k_twiddles<<<blocks(half), THREADS>>>(t.twi, half, k.omega_inv);
    CKLAUNCH();
    cache.push_back(t);
    *tw = t.tw;
    *twi = t.twi;
    return 0;
done:
    cuzk::dev_free(t.tw);
    cuzk::dev_free(t.twi);
    return rc;
}

int check_size(int dev, size_t n, char* err, size_t errlen) {
    int lg = log2_exact(n);
    if (n < 2 || lg < 0 || lg > 28) return fail(err, errlen, 1, "size %zu is not a power of two in [2, 2^28]", n);
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) return fail(err, errlen, cuzk::cuda_code(e), "cudaGetDeviceCount: %s", cudaGetErrorString(e));
    if (dev < 0 || dev >= count) return fail(err, errlen, 1, "device %d out of range (%d devices)", dev, count);
    e = cudaSetDevice(dev);
    if (e != cudaSuccess) return fail(err, errlen, cuzk::cuda_code(e), "cudaSetDevice(%d): %s", dev, cudaGetErrorString(e));
    return 0;
}

int check_args(int dev, size_t n, const void* consts, char* err, size_t errlen) {
    if (!consts) return fail(err, errlen, 1, "consts is NULL");
    return check_size(dev, n, err, errlen);
}

}  // namespace

extern "C" int cuzk_cuda_abi_version(void) { return CUZK_CUDA_ABI_VERSION; }

extern "C" int cuzk_cuda_device_count(int* count, char* err, size_t errlen) {
    if (!count) return fail(err, errlen, 1, "count is NULL");
    cudaError_t e = cudaGetDeviceCount(count);
    if (e != cudaSuccess) {
        *count = 0;
        return fail(err, errlen, cuzk::cuda_code(e), "cudaGetDeviceCount: %s", cudaGetErrorString(e));
    }
    return 0;
}

extern "C" int cuzk_cuda_device_info(int dev, char* name, size_t namelen, size_t* total, size_t* freeb, char* err,
                                     size_t errlen) {
    int rc = 0;
    cudaDeviceProp p;
    CK(cudaSetDevice(dev));
    CK(cudaGetDeviceProperties(&p, dev));
    if (name && namelen) snprintf(name, namelen, "%s", p.name);
    if (total && freeb) {
        CK(cudaMemGetInfo(freeb, total));
        *freeb += cuzk::pool_idle();  // the MSM pool's idle bytes are free to the caller too
    }
done:
    return rc;
}

extern "C" int cuzk_cuda_ntt(int dev, void* x, size_t n, int inverse, int coset, const void* consts, char* err,
                             size_t errlen) {
    int rc = check_args(dev, n, consts, err, errlen);
    if (rc) return rc;
    if (!x) return fail(err, errlen, 1, "x is NULL");
    consts_t k;
    memcpy(&k, consts, sizeof k);
    const fr_t *tw, *twi;
    fr_t* dx = nullptr;
    if ((rc = get_twiddles(dev, n, k, &tw, &twi, err, errlen))) goto done;
    CK(cuzk::dev_malloc(&dx, n * sizeof(fr_t)));
    if ((rc = cuzk::upload_bytes(dev, dx, x, n * sizeof(fr_t), err, errlen))) goto done;
    if ((rc = ntt_device(dx, n, log2_exact(n), inverse, coset, k, tw, twi, err, errlen))) goto done;
    rc = cuzk::download_bytes(dev, x, dx, n * sizeof(fr_t), err, errlen);
done:
    cuzk::dev_free(dx);
    return rc;
}

int cuzk::abc_upload(int dev, void* const hv[3], size_t n, abc_t** out, char* err, size_t errlen) {
    if (!hv[0] || !hv[1] || !hv[2] || !out) return fail(err, errlen, 1, "a, b, c or the handle is NULL");
    int rc = check_size(dev, n, err, errlen);
    if (rc) return rc;
    const size_t bytes = n * sizeof(fr_t);
    abc_t* x = new abc_t{dev, n, {nullptr, nullptr, nullptr}, {nullptr, nullptr, nullptr}};
    bool locked = page_locked(hv[0]) && page_locked(hv[1]) && page_locked(hv[2]);
    cudaStream_t cs = nullptr;
    if (locked) rc = copy_stream(dev, &cs, err, errlen);
    for (int i = 0; i < 3 && !rc; i++) {
        CK(cuzk::dev_malloc(&x->dv[i], bytes));
        if (!locked) {
            rc = upload_bytes(dev, x->dv[i], hv[i], bytes, err, errlen);
            continue;
        }
        CK(cudaMemcpyAsync(x->dv[i], hv[i], bytes, cudaMemcpyHostToDevice, cs));
        CK(cudaEventCreateWithFlags(&x->ready[i], cudaEventDisableTiming));
        CK(cudaEventRecord(x->ready[i], cs));
    }
done:
    if (rc) {
        if (cs) cudaStreamSynchronize(cs);  // no copy outlives the buffers
        abc_free(x);
        return rc;
    }
    *out = x;
    return 0;
}

void cuzk::abc_free(abc_t* x) {
    if (!x) return;
    cudaSetDevice(x->dev);
    for (int i = 0; i < 3; i++) {
        if (x->ready[i]) {
            cudaEventSynchronize(x->ready[i]);
            cudaEventDestroy(x->ready[i]);
        }
        cuzk::dev_free(x->dv[i]);
    }
    delete x;
}

int cuzk::h_abc(abc_t* x, const void* consts, char* err, size_t errlen) {
    const size_t n = x->n;  // checked by abc_upload
    if (!consts) return fail(err, errlen, 1, "consts is NULL");
    CKR(cudaSetDevice(x->dev));
    int rc = 0;
    if (!x->dv[1] || !x->dv[2]) return fail(err, errlen, 1, "h of these a, b, c was computed already");
    consts_t k;
    memcpy(&k, consts, sizeof k);
    const fr_t *tw, *twi;
    int lg = log2_exact(n);
    fr_t* dv[3] = {(fr_t*)x->dv[0], (fr_t*)x->dv[1], (fr_t*)x->dv[2]};
    if ((rc = get_twiddles(x->dev, n, k, &tw, &twi, err, errlen))) return rc;
    cuzk::phases ph("h");  // the profile option: the waits for the copies apart from the NTTs
    ph.mark("start");
    static const char* const waits[3] = {"wait a", "wait b", "wait c"};
    static const char* const ntts[3] = {"ntts a", "ntts b", "ntts c"};
    for (int i = 0; i < 3; i++) {
        if (x->ready[i]) CKR(cudaStreamWaitEvent(0, x->ready[i], 0));
        ph.mark(waits[i]);
        // evaluations -> coefficients -> evaluations on the coset
        if ((rc = ntt_device(dv[i], n, lg, 1, 0, k, tw, twi, err, errlen))) return rc;
        if ((rc = ntt_device(dv[i], n, lg, 0, 1, k, tw, twi, err, errlen))) return rc;
        ph.mark(ntts[i]);
    }
    k_h_pointwise<<<blocks(n), THREADS>>>(dv[0], dv[1], dv[2], n, k.z_inv);
    CKR(cudaGetLastError());
    ph.mark("pointwise");
    if ((rc = ntt_device(dv[0], n, lg, 1, 1, k, tw, twi, err, errlen))) return rc;
    ph.mark("inverse coset ntt");
    CKR(cudaDeviceSynchronize());
    for (int i = 1; i < 3; i++) {
        cuzk::dev_free(x->dv[i]);
        x->dv[i] = nullptr;
    }
    ph.mark("free b, c");
    return 0;
}

extern "C" int cuzk_cuda_ntt_h(int dev, void* a, void* b, void* c, size_t n, const void* consts, char* err,
                               size_t errlen) {
    int rc = check_args(dev, n, consts, err, errlen);
    if (rc) return rc;
    if (!a || !b || !c) return fail(err, errlen, 1, "a, b or c is NULL");
    void* hv[3] = {a, b, c};
    cuzk::abc_t* x = nullptr;
    if (!(rc = cuzk::abc_upload(dev, hv, n, &x, err, errlen)) && !(rc = cuzk::h_abc(x, consts, err, errlen)))
        rc = cuzk::download_bytes(dev, a, x->dv[0], n * sizeof(fr_t), err, errlen);
    cuzk::abc_free(x);
    return rc;
}

extern "C" int cuzk_cuda_bench_ntt(int dev, size_t n, int reps, const void* consts, double* ms, char* err,
                                   size_t errlen) {
    int rc = check_args(dev, n, consts, err, errlen);
    if (rc) return rc;
    if (!ms || reps < 1) return fail(err, errlen, 1, "ms is NULL or reps < 1");
    consts_t k;
    memcpy(&k, consts, sizeof k);
    const fr_t *tw, *twi;
    fr_t* dx = nullptr;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    float times[64];
    int lg = log2_exact(n);
    if (reps > 64) reps = 64;
    if ((rc = get_twiddles(dev, n, k, &tw, &twi, err, errlen))) goto done;
    CK(cuzk::dev_malloc(&dx, n * sizeof(fr_t)));
    k_fill_random<<<blocks(n), THREADS>>>(dx, n, 12345u);
    CKLAUNCH();
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    if ((rc = ntt_device(dx, n, lg, 0, 0, k, tw, twi, err, errlen))) goto done;  // warm-up
    for (int r = 0; r < reps; r++) {
        CK(cudaEventRecord(e0));
        if ((rc = ntt_device(dx, n, lg, 0, 0, k, tw, twi, err, errlen))) goto done;
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&times[r], e0, e1));
    }
    for (int i = 1; i < reps; i++)
        for (int j = i; j > 0 && times[j] < times[j - 1]; j--) {
            float t = times[j];
            times[j] = times[j - 1];
            times[j - 1] = t;
        }
    *ms = times[reps / 2];
done:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    cuzk::dev_free(dx);
    return rc;
}

extern "C" int cuzk_cuda_abc_upload(int dev, const void* a, const void* b, const void* c, size_t n, void** abc,
                                    char* err, size_t errlen) {
    if (!abc) return fail(err, errlen, 1, "the handle is NULL");
    void* hv[3] = {const_cast<void*>(a), const_cast<void*>(b), const_cast<void*>(c)};
    cuzk::abc_t* x = nullptr;
    int rc = cuzk::abc_upload(dev, hv, n, &x, err, errlen);
    if (!rc) *abc = x;
    return rc;
}

extern "C" void cuzk_cuda_abc_free(void* abc) { cuzk::abc_free(static_cast<cuzk::abc_t*>(abc)); }
