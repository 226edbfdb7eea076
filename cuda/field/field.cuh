// Montgomery arithmetic over N 32-bit limbs for BLS12-381's scalar field
// Fr (N = 8, R = 2^256) and base field Fp (N = 12, R = 2^384), little-endian
// limbs: the memory layout of gnark-crypto's elements and blst's fr_t/fp_t.
//
// Multiplication is CIOS (Koç, Acar, Kaliski, "Analyzing and comparing
// Montgomery multiplication algorithms", 1996) written as PTX carry chains:
// per limb b_i, one chain adds the products a_j·b_i of the even j (low and
// high halves into an aligned register pair), an independent one those of
// the odd j, and two more do the same for m·p (mont_mul below) — 4N
// multiply-adds a limb, the instruction count of schoolbook multiplication
// plus reduction. Both moduli leave spare bits (p < 2^381, r < 2^255),
// which bounds the running value below 2^(32(N+1)) so N+1 words hold it.
//
// The carry primitives have a host emulation, so cuda/hosttest.cpp checks
// this exact code with g++ on machines without a GPU (make test runs it).
#pragma once
#include <stdint.h>

#ifndef __CUDACC__  // host build of the arithmetic (cuda/hosttest.cpp)
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __constant__
#define __align__(n) alignas(n)
#endif

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

// ---- carry-chain primitives: x.cc sets the carry flag, xc reads it ----
namespace cc {
#ifdef __CUDA_ARCH__
#define CC_OP3(name, ins)                                                                       \
    __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b) {                          \
        uint32_t r;                                                                             \
        asm volatile(ins " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));                            \
        return r;                                                                               \
    }
#define CC_OP4(name, ins)                                                                       \
    __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b, uint32_t c) {              \
        uint32_t r;                                                                             \
        asm volatile(ins " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));                \
        return r;                                                                               \
    }
CC_OP3(add_cc, "add.cc.u32")
CC_OP3(addc_cc, "addc.cc.u32")
CC_OP3(addc, "addc.u32")
CC_OP3(sub_cc, "sub.cc.u32")
CC_OP3(subc_cc, "subc.cc.u32")
CC_OP3(subc, "subc.u32")
CC_OP4(mad_lo_cc, "mad.lo.cc.u32")
CC_OP4(madc_lo_cc, "madc.lo.cc.u32")
CC_OP4(mad_hi_cc, "mad.hi.cc.u32")
CC_OP4(madc_hi_cc, "madc.hi.cc.u32")
CC_OP4(madc_hi, "madc.hi.u32")
#undef CC_OP3
#undef CC_OP4
#else
// The emulation keeps the flag in a variable; same semantics as PTX.
static thread_local uint32_t flag;
inline uint32_t put(uint64_t s) {
    flag = (uint32_t)(s >> 32) & 1;
    return (uint32_t)s;
}
inline uint32_t add_cc(uint32_t a, uint32_t b) { return put((uint64_t)a + b); }
inline uint32_t addc_cc(uint32_t a, uint32_t b) { return put((uint64_t)a + b + flag); }
inline uint32_t addc(uint32_t a, uint32_t b) { return a + b + flag; }
inline uint32_t sub_cc(uint32_t a, uint32_t b) { return put((uint64_t)a - b); }
inline uint32_t subc_cc(uint32_t a, uint32_t b) { return put((uint64_t)a - b - flag); }
inline uint32_t subc(uint32_t a, uint32_t b) { return a - b - flag; }
inline uint32_t lo(uint32_t a, uint32_t b) { return (uint32_t)((uint64_t)a * b); }
inline uint32_t hi(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }
inline uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return put((uint64_t)lo(a, b) + c); }
inline uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return put((uint64_t)lo(a, b) + c + flag); }
inline uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return put((uint64_t)hi(a, b) + c); }
inline uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return put((uint64_t)hi(a, b) + c + flag); }
inline uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) { return hi(a, b) + c + flag; }
#endif
}  // namespace cc

// r = t − p if t ≥ p else t, for t < 2p held in N words.
template <int N>
__device__ __forceinline__ void reduce_once(uint32_t* r, const uint32_t* t, const uint32_t* p) {
    uint32_t s[N];
    s[0] = cc::sub_cc(t[0], p[0]);
#pragma unroll
    for (int j = 1; j < N; j++) s[j] = cc::subc_cc(t[j], p[j]);
    uint32_t borrow = cc::subc(0, 0);  // 0xffffffff when t < p
#pragma unroll
    for (int j = 0; j < N; j++) r[j] = borrow ? t[j] : s[j];
}

// The chains of one row of the aligned product below (and of its squaring):
// T[i + j] += x_j·y as 64-bit pairs for even j, the carry into T[i + N] ...
template <int N>
__device__ __forceinline__ void mad_even(uint32_t* T, int i, const uint32_t* x, uint32_t y) {
#pragma unroll
    for (int j = 0; j < N; j += 2) {
        T[i + j] = j ? cc::madc_lo_cc(x[j], y, T[i + j]) : cc::mad_lo_cc(x[j], y, T[i + j]);
        T[i + j + 1] = cc::madc_hi_cc(x[j], y, T[i + j + 1]);
    }
    T[i + N] = cc::addc(T[i + N], 0);
}

// ... and U[i + j] += x_j·y for odd j, the carry into U[i + N + 1]; WithC0
// starts the chain by adding the row before's carry c0 at limb i.
template <int N, bool WithC0>
__device__ __forceinline__ void mad_odd(uint32_t* U, int i, const uint32_t* x, uint32_t y, uint32_t c0) {
    if (WithC0) U[i] = cc::add_cc(U[i], c0);
#pragma unroll
    for (int j = 1; j < N; j += 2) {
        U[i + j] = (WithC0 || j > 1) ? cc::madc_lo_cc(x[j], y, U[i + j]) : cc::mad_lo_cc(x[j], y, U[i + j]);
        U[i + j + 1] = cc::madc_hi_cc(x[j], y, U[i + j + 1]);
    }
    U[i + N + 1] = cc::addc(U[i + N + 1], 0);
}

// The result, P[N..2N) + Q[N..2N) plus the last row's carry c0 (below 2p):
// reduced once, or left as it is (Lazy).
template <int N, bool Lazy>
__device__ __forceinline__ felem<N> mont_finish(const uint32_t* P, const uint32_t* Q, uint32_t c0, const uint32_t* p) {
    uint32_t r[N];
    cc::add_cc(c0, 0xffffffffu);  // the flag set to c0
#pragma unroll
    for (int k = 0; k < N; k++) r[k] = cc::addc_cc(P[N + k], Q[N + k]);
    felem<N> out;
    if (Lazy) {
#pragma unroll
        for (int k = 0; k < N; k++) out.v[k] = r[k];
    } else {
        reduce_once<N>(out.v, r, p);
    }
    return out;
}

// The reduction half of row i: m·p added with m making limb i of T + U
// (plus the row's carry c0 when WithC0: the squaring's rows leave it for
// here) 0 mod 2^32; that limb sum is then 0 or 2^32, and its carry is the
// next row's c0.
template <int N, bool WithC0>
__device__ __forceinline__ void mont_reduce_row(uint32_t* T, uint32_t* U, int i, const uint32_t* p, uint32_t pinv,
                                                uint32_t& c0) {
    const uint32_t m = (T[i] + U[i] + (WithC0 ? c0 : 0)) * pinv;
    mad_even<N>(T, i, p, m);
    mad_odd<N, WithC0>(U, i, p, m, c0);
    cc::add_cc(T[i], U[i]);
    c0 = cc::addc(0, 0);
}

// The product: per row i (one limb of b), a·b_i and then m·p (mont_reduce_row)
// added into two accumulators indexed by absolute limb (P[k], Q[k] both
// weigh 2^(32k), divided by 2^(32i) after row i), P taking every pair that
// starts at an even limb and Q every pair that starts at an odd one: row
// i's even-j products go to P when i is even, to Q when it is odd, and the
// odd-j products the other way. Two accumulators make two independent carry
// chains a row where one would serialise them (the G1 accumulation at 2^24
// 262 → 185 ms on the H200, cuda/DESIGN.md). A 64-bit multiply-add writes an
// aligned register pair, and here each array's pairs are the same in every
// row; with the accumulators indexed from the row's first limb instead, the
// pairs shift by one limb a row, and the SASS (sm_80) spends ~5,700 moves on
// realigning them in the accumulation kernel, beside ~6,600 wide
// multiply-adds (aligned: the G1 MSM at 2^24 212 → 168 ms on the H200, its
// accumulation 185 → 146 ms).
// Lazy (the bucket accumulation's fl_mul, curve.cuh): the result is left
// below 2p, without the final subtraction, for inputs below 2p — (a·b +
// m·p)/R < (4p² + R·p)/R < 2p because 4p < R = 2^(32N) for both moduli.
template <int N, bool Lazy = false>
__device__ __forceinline__ felem<N> mont_mul(const felem<N>& a, const felem<N>& b, const uint32_t* p,
                                             uint32_t pinv) {
    static_assert(N % 2 == 0, "even limb count");
    uint32_t P[2 * N + 1], Q[2 * N + 1];
#pragma unroll
    for (int k = 0; k < 2 * N + 1; k++) P[k] = Q[k] = 0;
    uint32_t c0 = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        // T takes the pairs from limb i on (even j), U those from limb i + 1
        // (odd j); U[i] only collects the carry c0 of the row before.
        uint32_t* T = (i & 1) ? Q : P;
        uint32_t* U = (i & 1) ? P : Q;
        const uint32_t bi = b.v[i];
        mad_even<N>(T, i, a.v, bi);
        mad_odd<N, true>(U, i, a.v, bi, c0);  // c0 enters with the product here
        mont_reduce_row<N, false>(T, U, i, p, pinv, c0);
    }
    return mont_finish<N, Lazy>(P, Q, c0, p);
}

// Squaring (f_sqr and fl_sqr, curve.cuh), the product above with each
// cross product a_i·a_j (i < j) formed once: row i multiplies a_i by
// a_i (limb 2i), by e_(i+1) = a_(i+1)·2 mod 2^32 (limb 2i + 1) and by
// d_j = a_j·2 mod 2^32 + the top bit of a_(j−1) (limb i + j, j ≥ i + 2):
// 2·Σ_(j>i) a_j·2^(32j) = e_(i+1)·2^(32(i+1)) + Σ_(j≥i+2) d_j·2^(32j), as
// the top limb's top bit is 0 (a < 2^383). N(N + 1)/2 products instead of
// N², then the same reduction rows (limb i is complete at row i: the rows
// before wrote limbs 2i'..i' + N + 1 only, inside the product's ranges).
// The carry c0 of the row before enters the reduction's odd chain, which
// starts at limb i here. For Fp, 78 products instead of 144: the
// accumulation kernel's wide multiply-adds (sm_80 SASS) 6,632 → 6,170, and
// with the lazy accumulation (curve.cuh) the G1 MSM at 2^24 155.5 → 141.7 ms
// on the H200 (cuda/DESIGN.md; each alone not measured).
template <int N, bool Lazy = false>
__device__ __forceinline__ felem<N> mont_sqr(const felem<N>& a, const uint32_t* p, uint32_t pinv) {
    static_assert(N % 2 == 0, "even limb count");
    uint32_t d[N], e[N];
    d[0] = e[0] = 0;  // unused
#pragma unroll
    for (int j = 1; j < N; j++) {
        e[j] = a.v[j] << 1;
        d[j] = e[j] | (a.v[j - 1] >> 31);
    }
    uint32_t P[2 * N + 1], Q[2 * N + 1];
#pragma unroll
    for (int k = 0; k < 2 * N + 1; k++) P[k] = Q[k] = 0;
    uint32_t c0 = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        uint32_t* T = (i & 1) ? Q : P;
        uint32_t* U = (i & 1) ? P : Q;
        const uint32_t ai = a.v[i];
        // even pairs: a_i·a_i at 2i, a_i·d_j at i + j (j = i + 2, i + 4, ...)
        P[2 * i] = cc::mad_lo_cc(ai, ai, P[2 * i]);
        P[2 * i + 1] = cc::madc_hi_cc(ai, ai, P[2 * i + 1]);
#pragma unroll
        for (int j = i + 2; j < N; j += 2) {
            P[i + j] = cc::madc_lo_cc(ai, d[j], P[i + j]);
            P[i + j + 1] = cc::madc_hi_cc(ai, d[j], P[i + j + 1]);
        }
        const int jp = i + ((N - 1 - i) & ~1);  // the last even-chain j
        P[i + jp + 2] = cc::addc(P[i + jp + 2], 0);
        // odd pairs: a_i·e_(i+1) at 2i + 1, a_i·d_j at i + j (j = i + 3, ...)
        if (i + 1 < N) {
            Q[2 * i + 1] = cc::mad_lo_cc(ai, e[i + 1], Q[2 * i + 1]);
            Q[2 * i + 2] = cc::madc_hi_cc(ai, e[i + 1], Q[2 * i + 2]);
#pragma unroll
            for (int j = i + 3; j < N; j += 2) {
                Q[i + j] = cc::madc_lo_cc(ai, d[j], Q[i + j]);
                Q[i + j + 1] = cc::madc_hi_cc(ai, d[j], Q[i + j + 1]);
            }
            const int jq = i + 1 + ((N - 2 - i) & ~1);  // the last odd-chain j
            Q[i + jq + 2] = cc::addc(Q[i + jq + 2], 0);
        }
        mont_reduce_row<N, true>(T, U, i, p, pinv, c0);
    }
    return mont_finish<N, Lazy>(P, Q, c0, p);
}

// a + b mod p for a, b < p (a + b < 2p < 2^(32N): no carry out).
template <int N>
__device__ __forceinline__ felem<N> mod_add(const felem<N>& a, const felem<N>& b, const uint32_t* p) {
    uint32_t t[N];
    t[0] = cc::add_cc(a.v[0], b.v[0]);
#pragma unroll
    for (int i = 1; i < N - 1; i++) t[i] = cc::addc_cc(a.v[i], b.v[i]);
    t[N - 1] = cc::addc(a.v[N - 1], b.v[N - 1]);
    felem<N> r;
    reduce_once<N>(r.v, t, p);
    return r;
}

// a − b mod p: the difference, plus p when it borrowed.
template <int N>
__device__ __forceinline__ felem<N> mod_sub(const felem<N>& a, const felem<N>& b, const uint32_t* p) {
    uint32_t t[N];
    t[0] = cc::sub_cc(a.v[0], b.v[0]);
#pragma unroll
    for (int i = 1; i < N; i++) t[i] = cc::subc_cc(a.v[i], b.v[i]);
    const uint32_t mask = cc::subc(0, 0);  // all ones when a < b
    felem<N> r;
    r.v[0] = cc::add_cc(t[0], p[0] & mask);
#pragma unroll
    for (int i = 1; i < N - 1; i++) r.v[i] = cc::addc_cc(t[i], p[i] & mask);
    r.v[N - 1] = cc::addc(t[N - 1], p[N - 1] & mask);
    return r;
}

// p − a for a < p (0 stays 0): the negation.
template <int N>
__device__ __forceinline__ felem<N> mod_neg(const felem<N>& a, const uint32_t* p) {
    felem<N> z;
#pragma unroll
    for (int i = 0; i < N; i++) z.v[i] = 0;
    return mod_sub<N>(z, a, p);
}

__device__ __forceinline__ fr_t fr_mul(const fr_t& a, const fr_t& b) { return mont_mul<8>(a, b, FR_P, FR_PINV); }
__device__ __forceinline__ fr_t fr_add(const fr_t& a, const fr_t& b) { return mod_add<8>(a, b, FR_P); }
__device__ __forceinline__ fr_t fr_sub(const fr_t& a, const fr_t& b) { return mod_sub<8>(a, b, FR_P); }

// x^e for a small exponent e (square and multiply, most significant bit first).
__device__ __forceinline__ fr_t fr_pow(const fr_t& x, uint64_t e, const fr_t& one) {
    fr_t r = one;
    if (e == 0) return r;
    for (int bit = 63; bit >= 0; bit--) {
        if ((e >> bit) == 0) continue;
        r = fr_mul(r, r);
        if ((e >> bit) & 1) r = fr_mul(r, x);
    }
    return r;
}

// One thread's share of a coset scaling x[i] *= base^i · c (use_pow) or
// x[i] *= c, for thread t of T: the elements t, t + T, t + 2T, ... from
// base^t · c, stepping by base^T (ntt/kernels.cuh's k_powscale; the host
// tests run it for every t).
__device__ __forceinline__ void fr_powscale_run(fr_t* x, size_t n, size_t T, size_t t, const fr_t& base,
                                                const fr_t& c, bool use_pow, const fr_t& one) {
    fr_t f = c, step = c;
    if (use_pow) {
        f = fr_mul(fr_pow(base, t, one), c);
        step = fr_pow(base, T, one);
    }
    for (size_t i = t; i < n; i += T) {
        x[i] = fr_mul(x[i], f);
        if (use_pow) f = fr_mul(f, step);
    }
}

// One radix-2 DIT butterfly of half-size m, thread i of n/2
// (ntt/kernels.cuh's k_stage): twiddle stride n/(2m) in tw (n/2 powers of
// ω).
__device__ __forceinline__ void fr_radix2(fr_t* x, size_t n, size_t m, const fr_t* tw, size_t i) {
    const size_t j = i & (m - 1);
    const size_t i1 = ((i - j) << 1) + j, i2 = i1 + m;
    const fr_t w = tw[j * (n / (2 * m))];
    const fr_t u = x[i1], v = fr_mul(x[i2], w);
    x[i1] = fr_add(u, v);
    x[i2] = fr_sub(u, v);
}

// The stages of half-sizes m and 2m at once, thread i of n/4
// (ntt/kernels.cuh's k_stage4): the elements i0 + {0, m, 2m, 3m} of one
// block of 4m, read and written once — half the passes over x of two
// radix-2 stages, the same four products. The host tests check it against fr_radix2 twice.
__device__ __forceinline__ void fr_radix4(fr_t* x, size_t n, size_t m, const fr_t* tw, size_t i) {
    const size_t j = i & (m - 1);
    const size_t i0 = ((i - j) << 2) + j;
    const fr_t a0 = x[i0], a1 = x[i0 + m], a2 = x[i0 + 2 * m], a3 = x[i0 + 3 * m];
    const fr_t w1 = tw[j * (n / (2 * m))];  // stage m: (i0, i0 + m), (i0 + 2m, i0 + 3m)
    fr_t v = fr_mul(a1, w1);
    const fr_t b0 = fr_add(a0, v), b1 = fr_sub(a0, v);
    v = fr_mul(a3, w1);
    const fr_t b2 = fr_add(a2, v), b3 = fr_sub(a2, v);
    const size_t s = n / (4 * m);  // stage 2m: (i0, i0 + 2m) at j, (i0 + m, i0 + 3m) at j + m
    v = fr_mul(b2, tw[j * s]);
    x[i0] = fr_add(b0, v);
    x[i0 + 2 * m] = fr_sub(b0, v);
    v = fr_mul(b3, tw[(j + m) * s]);
    x[i0 + m] = fr_add(b1, v);
    x[i0 + 3 * m] = fr_sub(b1, v);
}

#ifdef __CUDACC__
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
#endif

// (r − 1)/2: scalars above it are replaced by r − k and a negated point.
static __device__ __constant__ uint32_t FR_HALF[8] = {0x80000000u, 0x7fffffffu, 0x7fff2dffu, 0xa9ded201u,
                                               0x04d0ec02u, 0x199cec04u, 0x94cebea4u, 0x39f6d3a9u};

// fr_signed_digits splits k (regular form, k < r) into nw signed c-bit
// digits d_w with |d_w| ≤ 2^(c−1), calling emit(w, d_w) for each window:
// Σ d_w·2^(c·w) equals k, or r − k when the function returns true (k above
// (r−1)/2, so the caller negates the point). r − k < 2^254 keeps the last
// carry inside nw = ⌈255/c⌉ windows.
template <class Emit>
__device__ __forceinline__ bool fr_signed_digits(const fr_t& k, int c, int nw, Emit emit) {
    bool neg = false;
#pragma unroll
    for (int i = 7; i >= 0; i--) {
        if (k.v[i] != FR_HALF[i]) {
            neg = k.v[i] > FR_HALF[i];
            break;
        }
    }
    fr_t v = neg ? mod_neg<8>(k, FR_P) : k;
    const uint32_t mask = (1u << c) - 1, half = 1u << (c - 1);
    uint32_t carry = 0;
    for (int w = 0; w < nw; w++) {
        int bit = w * c, limb = bit >> 5, sh = bit & 31;
        uint64_t word = limb < 8 ? v.v[limb] : 0;
        if (limb + 1 < 8) word |= (uint64_t)v.v[limb + 1] << 32;
        uint32_t d = ((uint32_t)(word >> sh) & mask) + carry;
        carry = d > half;
        emit(w, carry ? (int32_t)d - (int32_t)(1u << c) : (int32_t)d);
    }
    return neg;
}
