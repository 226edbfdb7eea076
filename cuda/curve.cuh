// BLS12-381 G1 (y^2 = x^3 + 4 over Fp) in Jacobian coordinates, x = X/Z^2,
// y = Y/Z^3 — gnark-crypto's G1Jac convention and memory layout. Formulas
// from the Explicit-Formulas Database (hyperelliptic.org/EFD, a = 0):
// dbl-2009-l, madd-2007-bl, add-2007-bl, with the special cases (infinity,
// P = Q, P = -Q) handled explicitly.
#pragma once
#include "field.cuh"

typedef felem<12> fp_t;

// p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
static __device__ __constant__ uint32_t FP_P[12] = {0xffffaaabu, 0xb9feffffu, 0xb153ffffu, 0x1eabfffeu,
                                             0xf6b0f624u, 0x6730d2a0u, 0xf38512bfu, 0x64774b84u,
                                             0x434bacd7u, 0x4b1ba7b6u, 0x397fe69au, 0x1a0111eau};
#define FP_PINV 0xfffcfffdu

__device__ __forceinline__ fp_t fp_mul(const fp_t& a, const fp_t& b) { return mont_mul<12>(a, b, FP_P, FP_PINV); }
__device__ __forceinline__ fp_t fp_sqr(const fp_t& a) { return mont_mul<12>(a, a, FP_P, FP_PINV); }
__device__ __forceinline__ fp_t fp_add(const fp_t& a, const fp_t& b) { return mod_add<12>(a, b, FP_P); }
__device__ __forceinline__ fp_t fp_sub(const fp_t& a, const fp_t& b) { return mod_sub<12>(a, b, FP_P); }
__device__ __forceinline__ fp_t fp_dbl(const fp_t& a) { return mod_add<12>(a, a, FP_P); }

__device__ __forceinline__ bool fp_is_zero(const fp_t& a) {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < 12; i++) acc |= a.v[i];
    return acc == 0;
}

__device__ __forceinline__ bool fp_eq(const fp_t& a, const fp_t& b) {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < 12; i++) acc |= a.v[i] ^ b.v[i];
    return acc == 0;
}

__device__ __forceinline__ fp_t fp_one() {
    // R mod p
    const uint32_t R[12] = {0x0002fffdu, 0x76090000u, 0xc40c0002u, 0xebf4000bu, 0x53c758bau, 0x5f489857u,
                            0x70525745u, 0x77ce5853u, 0xa256ec6du, 0x5c071a97u, 0xfa80e493u, 0x15f65ec3u};
    fp_t o;
#pragma unroll
    for (int i = 0; i < 12; i++) o.v[i] = R[i];
    return o;
}

struct g1_affine {
    fp_t x, y;  // (0, 0) is the point at infinity, as in gnark-crypto
};

struct g1_jac {
    fp_t x, y, z;  // z = 0: the point at infinity
};

__device__ __forceinline__ g1_jac g1_infinity() {
    g1_jac r;
#pragma unroll
    for (int i = 0; i < 12; i++) r.x.v[i] = r.y.v[i] = r.z.v[i] = 0;
    r.x = fp_one();
    r.y = fp_one();
    return r;
}

__device__ __forceinline__ bool g1_is_inf(const g1_jac& p) { return fp_is_zero(p.z); }
__device__ __forceinline__ bool g1_affine_is_inf(const g1_affine& a) { return fp_is_zero(a.x) && fp_is_zero(a.y); }

// dbl-2009-l
__device__ __forceinline__ g1_jac g1_double(const g1_jac& p) {
    if (g1_is_inf(p)) return p;
    fp_t A = fp_sqr(p.x), B = fp_sqr(p.y), C = fp_sqr(B);
    fp_t D = fp_dbl(fp_sub(fp_sub(fp_sqr(fp_add(p.x, B)), A), C));
    fp_t E = fp_add(fp_dbl(A), A);
    fp_t F = fp_sqr(E);
    g1_jac r;
    r.x = fp_sub(F, fp_dbl(D));
    fp_t C8 = fp_dbl(fp_dbl(fp_dbl(C)));
    r.y = fp_sub(fp_mul(E, fp_sub(D, r.x)), C8);
    r.z = fp_dbl(fp_mul(p.y, p.z));
    return r;
}

// madd-2007-bl: p + (a, 1)
__device__ __forceinline__ g1_jac g1_add_mixed(const g1_jac& p, const g1_affine& a) {
    if (g1_affine_is_inf(a)) return p;
    if (g1_is_inf(p)) {
        g1_jac r;
        r.x = a.x;
        r.y = a.y;
        r.z = fp_one();
        return r;
    }
    fp_t Z1Z1 = fp_sqr(p.z);
    fp_t U2 = fp_mul(a.x, Z1Z1);
    fp_t S2 = fp_mul(fp_mul(a.y, p.z), Z1Z1);
    fp_t H = fp_sub(U2, p.x);
    fp_t rr = fp_dbl(fp_sub(S2, p.y));
    if (fp_is_zero(H)) {
        if (fp_is_zero(rr)) {
            g1_jac q;
            q.x = a.x;
            q.y = a.y;
            q.z = fp_one();
            return g1_double(q);
        }
        return g1_infinity();
    }
    fp_t HH = fp_sqr(H);
    fp_t I = fp_dbl(fp_dbl(HH));
    fp_t J = fp_mul(H, I);
    fp_t V = fp_mul(p.x, I);
    g1_jac r;
    r.x = fp_sub(fp_sub(fp_sqr(rr), J), fp_dbl(V));
    r.y = fp_sub(fp_mul(rr, fp_sub(V, r.x)), fp_dbl(fp_mul(p.y, J)));
    r.z = fp_sub(fp_sub(fp_sqr(fp_add(p.z, H)), Z1Z1), HH);
    return r;
}

// add-2007-bl
__device__ __forceinline__ g1_jac g1_add(const g1_jac& p, const g1_jac& q) {
    if (g1_is_inf(p)) return q;
    if (g1_is_inf(q)) return p;
    fp_t Z1Z1 = fp_sqr(p.z), Z2Z2 = fp_sqr(q.z);
    fp_t U1 = fp_mul(p.x, Z2Z2), U2 = fp_mul(q.x, Z1Z1);
    fp_t S1 = fp_mul(fp_mul(p.y, q.z), Z2Z2);
    fp_t S2 = fp_mul(fp_mul(q.y, p.z), Z1Z1);
    fp_t H = fp_sub(U2, U1);
    fp_t rr = fp_dbl(fp_sub(S2, S1));
    if (fp_is_zero(H)) {
        if (fp_is_zero(rr)) return g1_double(p);
        return g1_infinity();
    }
    fp_t I = fp_sqr(fp_dbl(H));
    fp_t J = fp_mul(H, I);
    fp_t V = fp_mul(U1, I);
    g1_jac r;
    r.x = fp_sub(fp_sub(fp_sqr(rr), J), fp_dbl(V));
    r.y = fp_sub(fp_mul(rr, fp_sub(V, r.x)), fp_dbl(fp_mul(S1, J)));
    r.z = fp_mul(fp_sub(fp_sub(fp_sqr(fp_add(p.z, q.z)), Z1Z1), Z2Z2), H);
    return r;
}

// k·p for a small non-negative k.
__device__ __forceinline__ g1_jac g1_mul_small(const g1_jac& p, uint32_t k) {
    g1_jac r = g1_infinity();
    if (k == 0) return r;
    for (int bit = 31 - __clz((int)k); bit >= 0; bit--) {
        r = g1_double(r);
        if ((k >> bit) & 1) r = g1_add(r, p);
    }
    return r;
}
