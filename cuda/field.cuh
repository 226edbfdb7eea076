// Montgomery arithmetic over N 32-bit limbs (CIOS: Koç, Acar, Kaliski,
// "Analyzing and comparing Montgomery multiplication algorithms", 1996),
// for BLS12-381's scalar field Fr (N = 8, R = 2^256) and, later, its base
// field Fp (N = 12, R = 2^384). Little-endian limbs: the memory layout of
// gnark-crypto's elements and blst's fr_t/fp_t.
#pragma once
#include <stdint.h>

template <int N>
struct __align__(16) felem {
    uint32_t v[N];
};

typedef felem<8> fr_t;

// r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
static __device__ __constant__ uint32_t FR_P[8] = {0x00000001u, 0xffffffffu, 0xfffe5bfeu, 0x53bda402u,
                                            0x09a1d805u, 0x3339d808u, 0x299d7d48u, 0x73eda753u};
// -r^-1 mod 2^32 (r ≡ 1 mod 2^32)
#define FR_PINV 0xffffffffu

template <int N>
__device__ __forceinline__ bool geq(const uint32_t* a, const uint32_t* p) {
#pragma unroll
    for (int i = N - 1; i >= 0; i--) {
        if (a[i] != p[i]) return a[i] > p[i];
    }
    return true;
}

template <int N>
__device__ __forceinline__ void sub_p(uint32_t* a, const uint32_t* p) {
    int64_t borrow = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        int64_t d = (int64_t)a[i] - p[i] + borrow;
        a[i] = (uint32_t)d;
        borrow = d >> 32;
    }
}

template <int N>
__device__ __forceinline__ felem<N> mont_mul(const felem<N>& a, const felem<N>& b, const uint32_t* p,
                                             uint32_t pinv) {
    uint32_t t[N + 2];
#pragma unroll
    for (int i = 0; i < N + 2; i++) t[i] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        uint64_t c = 0;
#pragma unroll
        for (int j = 0; j < N; j++) {
            uint64_t s = (uint64_t)a.v[j] * b.v[i] + t[j] + c;
            t[j] = (uint32_t)s;
            c = s >> 32;
        }
        uint64_t s = (uint64_t)t[N] + c;
        t[N] = (uint32_t)s;
        t[N + 1] = (uint32_t)(s >> 32);
        uint32_t m = t[0] * pinv;
        s = (uint64_t)m * p[0] + t[0];
        c = s >> 32;
#pragma unroll
        for (int j = 1; j < N; j++) {
            s = (uint64_t)m * p[j] + t[j] + c;
            t[j - 1] = (uint32_t)s;
            c = s >> 32;
        }
        s = (uint64_t)t[N] + c;
        t[N - 1] = (uint32_t)s;
        t[N] = t[N + 1] + (uint32_t)(s >> 32);
    }
    felem<N> r;
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = t[i];
    if (t[N] != 0 || geq<N>(r.v, p)) sub_p<N>(r.v, p);
    return r;
}

template <int N>
__device__ __forceinline__ felem<N> mod_add(const felem<N>& a, const felem<N>& b, const uint32_t* p) {
    felem<N> r;
    uint64_t c = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        uint64_t s = (uint64_t)a.v[i] + b.v[i] + c;
        r.v[i] = (uint32_t)s;
        c = s >> 32;
    }
    if (c || geq<N>(r.v, p)) sub_p<N>(r.v, p);
    return r;
}

template <int N>
__device__ __forceinline__ felem<N> mod_sub(const felem<N>& a, const felem<N>& b, const uint32_t* p) {
    felem<N> r;
    int64_t borrow = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        int64_t d = (int64_t)a.v[i] - b.v[i] + borrow;
        r.v[i] = (uint32_t)d;
        borrow = d >> 32;
    }
    if (borrow) {
        uint64_t c = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            uint64_t s = (uint64_t)r.v[i] + p[i] + c;
            r.v[i] = (uint32_t)s;
            c = s >> 32;
        }
    }
    return r;
}

__device__ __forceinline__ fr_t fr_mul(const fr_t& a, const fr_t& b) { return mont_mul<8>(a, b, FR_P, FR_PINV); }
__device__ __forceinline__ fr_t fr_add(const fr_t& a, const fr_t& b) { return mod_add<8>(a, b, FR_P); }
__device__ __forceinline__ fr_t fr_sub(const fr_t& a, const fr_t& b) { return mod_sub<8>(a, b, FR_P); }

// x^e for a small exponent e (square and multiply, most significant bit first).
__device__ __forceinline__ fr_t fr_pow(const fr_t& x, uint64_t e, const fr_t& one) {
    fr_t r = one;
    if (e == 0) return r;
    for (int bit = 63 - __clzll((long long)e); bit >= 0; bit--) {
        r = fr_mul(r, r);
        if ((e >> bit) & 1) r = fr_mul(r, x);
    }
    return r;
}

// Fills x with pseudo-random elements below r (xorshift from the seed and
// the index), for the bench drivers: device-resident, never zeros.
static __global__ void k_fill_random(fr_t* x, size_t n, uint32_t seed) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr_t v;
    uint32_t s = seed ^ (uint32_t)(i * 0x9e3779b9u);
    for (int j = 0; j < 8; j++) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        v.v[j] = s;
    }
    v.v[7] &= 0x3fffffffu;  // below r
    x[i] = v;
}
