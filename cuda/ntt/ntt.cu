// Radix-2 NTTs over Fr and Groth16's quotient h, natural order in and out:
// the functions behind cuzk_cuda.h's NTT and h entry points (api_ntt.cu
// wraps them). A bit-reversal permutation, then the butterfly stages, two a
// pass (kernels.cuh); the domain constants come from the caller
// (twiddles.cuh). The tests compare every output element with the CPU
// backend.
#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <new>

#include "api.h"
#include "cuzk_cuda.h"
#include "field/field.cuh"
#include "ntt/h.cuh"
#include "ntt/kernels.cuh"
#include "ntt/twiddles.cuh"
#include "scalars/scalars.cuh"
#include "util/common.cuh"
#include "util/staging.cuh"

namespace {

using cuzk::blocks;
using cuzk::fail;
using cuzk::THREADS;

// k_powscale over all of x.
void powscale(fr_t* x, size_t n, const fr_t& base, const fr_t& c, int use_pow) {
    const size_t T = (n + POW_RUN - 1) / POW_RUN;
    k_powscale<<<blocks(T), THREADS>>>(x, n, T, base, c, use_pow);
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

// to_coset takes x from evaluations on the domain to coefficients to
// evaluations on the coset (h's first step for each of a, b, c).
int to_coset(fr_t* x, size_t n, int logn, const consts_t& k, const fr_t* tw, const fr_t* twi, char* err,
             size_t errlen) {
    int rc = ntt_device(x, n, logn, 1, 0, k, tw, twi, err, errlen);
    return rc ? rc : ntt_device(x, n, logn, 0, 1, k, tw, twi, err, errlen);
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

void cuzk::trim_twiddles(int dev) {
    std::vector<twiddles> unused;
    {
        std::lock_guard<std::mutex> g(twiddles_mu);
        unused = take_unused(dev, 0);
    }
    free_tables(unused);
}

int cuzk::ntt(int dev, void* x, size_t n, int inverse, int coset, const void* consts, char* err, size_t errlen) {
    int rc = check_args(dev, n, consts, err, errlen);
    if (rc) return rc;
    if (!x) return fail(err, errlen, 1, "x is NULL");
    consts_t k;
    memcpy(&k, consts, sizeof k);
    twiddle_lease tl;
    fr_t* dx = nullptr;
    if ((rc = get_twiddles(dev, n, k, &tl, err, errlen))) goto done;
    CK(cuzk::dev_malloc(&dx, n * sizeof(fr_t)));
    if ((rc = cuzk::upload_bytes(dev, dx, x, n * sizeof(fr_t), err, errlen))) goto done;
    if ((rc = ntt_device(dx, n, log2_exact(n), inverse, coset, k, tl.tw, tl.twi, err, errlen))) goto done;
    rc = cuzk::download_bytes(dev, x, dx, n * sizeof(fr_t), err, errlen);
done:
    cuzk::dev_free(dx);
    return rc;
}

// abc_put allocates x->dv[i] and copies host h into it: on the copy stream
// cs, its event recorded, when cs is set (page-locked memory); otherwise
// through the staging buffers before it returns.
static int abc_put(cuzk::abc_t* x, int i, void* h, cudaStream_t cs, char* err, size_t errlen) {
    const size_t bytes = x->n * sizeof(fr_t);
    CKR(cuzk::dev_malloc(&x->dv[i], bytes));
    if (!cs) return cuzk::upload_bytes(x->dev, x->dv[i], h, bytes, err, errlen);
    CKR(cudaMemcpyAsync(x->dv[i], h, bytes, cudaMemcpyHostToDevice, cs));
    CKR(cudaEventCreateWithFlags(&x->ready[i], cudaEventDisableTiming));
    CKR(cudaEventRecord(x->ready[i], cs));
    return 0;
}

// abc_put_all puts hv[i] for i in [from, to) into x: all on the copy
// stream when they are all page-locked. On failure no copy is left running
// and the vectors it allocated are freed.
static int abc_put_all(cuzk::abc_t* x, void* const hv[3], int from, int to, char* err, size_t errlen) {
    bool locked = true;
    for (int i = from; i < to; i++) locked = locked && cuzk::page_locked(hv[i]);
    cudaStream_t cs = nullptr;
    int rc = locked ? cuzk::copy_stream(x->dev, &cs, err, errlen) : 0;
    for (int i = from; i < to && !rc; i++) rc = abc_put(x, i, hv[i], cs, err, errlen);
    if (rc) {
        if (cs) cudaStreamSynchronize(cs);  // no copy outlives the buffers
        for (int i = from; i < to; i++) {
            if (x->ready[i]) cudaEventDestroy(x->ready[i]);
            x->ready[i] = nullptr;
            cuzk::dev_free(x->dv[i]);
            x->dv[i] = nullptr;
        }
    }
    return rc;
}

int cuzk::abc_upload(int dev, void* const hv[3], size_t n, abc_t** out, char* err, size_t errlen) {
    if (!hv[0] || !out) return fail(err, errlen, 1, "a or the handle is NULL");
    if (!hv[1] != !hv[2]) return fail(err, errlen, 1, "b and c are both given or both NULL");
    int rc = check_size(dev, n, err, errlen);
    if (rc) return rc;
    abc_t* x = new abc_t{dev, n, {nullptr, nullptr, nullptr}, {nullptr, nullptr, nullptr}, hv[1] ? 3 : 1};
    if ((rc = abc_put_all(x, hv, 0, x->parts, err, errlen))) {
        abc_free(x);
        return rc;
    }
    *out = x;
    return 0;
}

int cuzk::abc_add(abc_t* x, void* b, void* c, char* err, size_t errlen) {
    if (!x || !b || !c) return fail(err, errlen, 1, "NULL handle, b or c");
    if (x->parts != 1) return fail(err, errlen, 1, "b and c of this handle were uploaded already");
    CKR(cudaSetDevice(x->dev));
    void* hv[3] = {nullptr, b, c};
    int rc = abc_put_all(x, hv, 1, 3, err, errlen);
    if (!rc) x->parts = 3;
    return rc;
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
    if (x->parts != 3) return fail(err, errlen, 1, "b and c of this handle are not uploaded (cuzk_cuda_abc_add)");
    if (!x->dv[1] || !x->dv[2]) return fail(err, errlen, 1, "h of these a, b, c was computed already");
    consts_t k;
    memcpy(&k, consts, sizeof k);
    twiddle_lease tl;
    int lg = log2_exact(n);
    fr_t* dv[3] = {(fr_t*)x->dv[0], (fr_t*)x->dv[1], (fr_t*)x->dv[2]};
    if ((rc = get_twiddles(x->dev, n, k, &tl, err, errlen))) return rc;
    const fr_t *tw = tl.tw, *twi = tl.twi;
    cuzk::phases ph("h");  // the profile option: the waits for the copies apart from the NTTs
    ph.mark("start");
    static const char* const waits[3] = {"wait a", "wait b", "wait c"};
    static const char* const ntts[3] = {"ntts a", "ntts b", "ntts c"};
    for (int i = 0; i < 3; i++) {
        if (x->ready[i]) CKR(cudaStreamWaitEvent(0, x->ready[i], 0));
        ph.mark(waits[i]);
        if ((rc = to_coset(dv[i], n, lg, k, tw, twi, err, errlen))) return rc;
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

int cuzk::h_abc_lean(abc_t* x, void* b, void* c, const void* consts, char* err, size_t errlen) {
    const size_t n = x->n;  // checked by abc_upload
    if (!consts || !b || !c) return fail(err, errlen, 1, "consts, b or c is NULL");
    if (x->parts != 1 || !x->dv[0])
        return fail(err, errlen, 1, "the handle holds more than a (cuzk_cuda_abc_upload with b and c NULL)");
    CKR(cudaSetDevice(x->dev));
    int rc = 0;
    consts_t k;
    memcpy(&k, consts, sizeof k);
    twiddle_lease tl;
    int lg = log2_exact(n);
    fr_t* da = (fr_t*)x->dv[0];
    void* hv[3] = {nullptr, b, c};
    if ((rc = get_twiddles(x->dev, n, k, &tl, err, errlen))) return rc;
    const fr_t *tw = tl.tw, *twi = tl.twi;
    cuzk::phases ph("h lean");
    ph.mark("start");
    // b's copy runs beside a's NTTs (the same two vectors as later)
    if ((rc = abc_put_all(x, hv, 1, 2, err, errlen))) return rc;
    if (x->ready[0]) CKR(cudaStreamWaitEvent(0, x->ready[0], 0));
    ph.mark("wait a");
    if ((rc = to_coset(da, n, lg, k, tw, twi, err, errlen))) return rc;
    ph.mark("ntts a");
    static const char* const done[3] = {nullptr, "b folded in", "c folded in"};
    for (int i = 1; i < 3; i++) {
        // c goes up into the room b left
        if (i == 2 && (rc = abc_put_all(x, hv, 2, 3, err, errlen))) return rc;
        fr_t* dx = (fr_t*)x->dv[i];
        if (x->ready[i]) CKR(cudaStreamWaitEvent(0, x->ready[i], 0));
        if ((rc = to_coset(dx, n, lg, k, tw, twi, err, errlen))) return rc;
        if (i == 1)
            k_h_mul<<<blocks(n), THREADS>>>(da, dx, n);
        else
            k_h_sub_scale<<<blocks(n), THREADS>>>(da, dx, n, k.z_inv);
        CKR(cudaGetLastError());
        CKR(cudaStreamSynchronize(0));  // the kernel reading x->dv[i] is done before it is freed
        cuzk::dev_free(x->dv[i]);
        x->dv[i] = nullptr;
        ph.mark(done[i]);
    }
    if ((rc = ntt_device(da, n, lg, 1, 1, k, tw, twi, err, errlen))) return rc;
    CKR(cudaDeviceSynchronize());
    ph.mark("inverse coset ntt");
    x->parts = 3;  // b and c were given (and are gone): h is in dv[0]
    return 0;
}

int cuzk::ntt_h(int dev, void* a, void* b, void* c, size_t n, const void* consts, char* err, size_t errlen) {
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

#ifdef CUZK_CUDA_BENCH
int cuzk::bench_ntt(int dev, size_t n, int reps, const void* consts, double* ms, char* err, size_t errlen) {
    int rc = check_args(dev, n, consts, err, errlen);
    if (rc) return rc;
    if (!ms || reps < 1) return fail(err, errlen, 1, "ms is NULL or reps < 1");
    consts_t k;
    memcpy(&k, consts, sizeof k);
    twiddle_lease tl;
    fr_t* dx = nullptr;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    float times[64];
    int lg = log2_exact(n);
    if (reps > 64) reps = 64;
    if ((rc = get_twiddles(dev, n, k, &tl, err, errlen))) goto done;
    CK(cuzk::dev_malloc(&dx, n * sizeof(fr_t)));
    k_fill_random<<<blocks(n), THREADS>>>(dx, n, 12345u);
    CKLAUNCH();
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    if ((rc = ntt_device(dx, n, lg, 0, 0, k, tl.tw, tl.twi, err, errlen))) goto done;  // warm-up
    for (int r = 0; r < reps; r++) {
        CK(cudaEventRecord(e0));
        if ((rc = ntt_device(dx, n, lg, 0, 0, k, tl.tw, tl.twi, err, errlen))) goto done;
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
#endif

// h_scalars_of hands x->dv[0], h after rc (0: computed), to *scalars as a
// vector of its n − 1 coefficients, and frees x (also on error).
static int h_scalars_of(cuzk::abc_t* x, int rc, void** scalars, char* err, size_t errlen) {
    if (!rc) {
        cuzk::scalar_vec* v = new (std::nothrow) cuzk::scalar_vec{x->dev, x->n - 1, static_cast<fr_t*>(x->dv[0])};
        if (!v) {
            rc = fail(err, errlen, 2, "out of host memory");
        } else {
            *scalars = v;
            x->dv[0] = nullptr;  // the vector owns it now
        }
    }
    cuzk::abc_free(x);  // consumed, also on error
    return rc;
}

// h_abc_args checks the arguments every h_abc*_scalars entry takes and
// selects x's device.
static int h_abc_args(cuzk::abc_t* x, const void* consts, void** scalars, char* err, size_t errlen) {
    if (!x || !consts || !scalars) return fail(err, errlen, 1, "NULL argument");
    if (cudaError_t e = cudaSetDevice(x->dev))
        return fail(err, errlen, cuzk::cuda_code(e), "cudaSetDevice(%d): %s", x->dev, cudaGetErrorString(e));
    return 0;
}

int cuzk::h_abc_scalars(void* abc, const void* consts, void** scalars, char* err, size_t errlen) {
    cuzk::abc_t* x = static_cast<cuzk::abc_t*>(abc);
    int rc = h_abc_args(x, consts, scalars, err, errlen);
    if (!rc) rc = cuzk::h_abc(x, consts, err, errlen);
    return h_scalars_of(x, rc, scalars, err, errlen);
}

int cuzk::h_abc_lean_scalars(void* abc, const void* b, const void* c, const void* consts, void** scalars, char* err,
                             size_t errlen) {
    cuzk::abc_t* x = static_cast<cuzk::abc_t*>(abc);
    int rc = h_abc_args(x, consts, scalars, err, errlen);
    if (!rc) rc = cuzk::h_abc_lean(x, const_cast<void*>(b), const_cast<void*>(c), consts, err, errlen);
    return h_scalars_of(x, rc, scalars, err, errlen);
}
