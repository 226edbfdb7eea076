// The NTT's kernels over Fr (field.cuh's butterflies) and h's pointwise
// step, launched by ntt.cu and twiddles.cuh.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "field/field.cuh"

namespace {

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
// a pass, cuda/DESIGN.md); k_stage takes the last stage of an odd count.
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

// h on the coset: a = (a·b − c)/(g^n − 1), z_inv = 1/(g^n − 1).
__global__ void k_h_pointwise(fr_t* a, const fr_t* b, const fr_t* c, size_t n, fr_t z_inv) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    a[i] = fr_mul(fr_sub(fr_mul(a[i], b[i]), c[i]), z_inv);
}

// k_h_pointwise a vector at a time (h_abc_lean): a = a·b, then
// a = (a − c)·z_inv.
__global__ void k_h_mul(fr_t* a, const fr_t* b, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) a[i] = fr_mul(a[i], b[i]);
}

__global__ void k_h_sub_scale(fr_t* a, const fr_t* c, size_t n, fr_t z_inv) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) a[i] = fr_mul(fr_sub(a[i], c[i]), z_inv);
}

}  // namespace
