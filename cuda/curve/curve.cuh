// BLS12-381's G1 (y^2 = x^3 + 4 over Fp) and G2 (y^2 = x^3 + 4(u + 1) over
// Fp2 = Fp[u]/(u^2 + 1)) in Jacobian coordinates, x = X/Z^2, y = Y/Z^3 —
// gnark-crypto's G1Jac/G2Jac convention and memory layouts. Formulas from
// the Explicit-Formulas Database (hyperelliptic.org/EFD, a = 0): dbl-2009-l,
// madd-2007-bl, add-2007-bl, with the special cases (infinity, P = Q,
// P = -Q) handled explicitly. The point code is written once over the
// field type; the field operations are overloaded for Fp and Fp2.
#pragma once
#include "field/field.cuh"

typedef felem<12> fp_t;

// p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
static __device__ __constant__ uint32_t FP_P[12] = {0xffffaaabu, 0xb9feffffu, 0xb153ffffu, 0x1eabfffeu,
                                                    0xf6b0f624u, 0x6730d2a0u, 0xf38512bfu, 0x64774b84u,
                                                    0x434bacd7u, 0x4b1ba7b6u, 0x397fe69au, 0x1a0111eau};
#define FP_PINV 0xfffcfffdu

// ---- Fp ----
__device__ __forceinline__ fp_t f_mul(const fp_t& a, const fp_t& b) { return mont_mul<12>(a, b, FP_P, FP_PINV); }
__device__ __forceinline__ fp_t f_sqr(const fp_t& a) { return mont_sqr<12>(a, FP_P, FP_PINV); }
__device__ __forceinline__ fp_t f_add(const fp_t& a, const fp_t& b) { return mod_add<12>(a, b, FP_P); }
__device__ __forceinline__ fp_t f_sub(const fp_t& a, const fp_t& b) { return mod_sub<12>(a, b, FP_P); }
__device__ __forceinline__ fp_t f_dbl(const fp_t& a) { return mod_add<12>(a, a, FP_P); }
__device__ __forceinline__ fp_t f_neg(const fp_t& a) { return mod_neg<12>(a, FP_P); }

__device__ __forceinline__ bool f_is_zero(const fp_t& a) {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < 12; i++) acc |= a.v[i];
    return acc == 0;
}

__device__ __forceinline__ void f_set_one(fp_t& o) {
    // R mod p
    const uint32_t R[12] = {0x0002fffdu, 0x76090000u, 0xc40c0002u, 0xebf4000bu, 0x53c758bau, 0x5f489857u,
                            0x70525745u, 0x77ce5853u, 0xa256ec6du, 0x5c071a97u, 0xfa80e493u, 0x15f65ec3u};
#pragma unroll
    for (int i = 0; i < 12; i++) o.v[i] = R[i];
}

__device__ __forceinline__ void f_set_zero(fp_t& o) {
#pragma unroll
    for (int i = 0; i < 12; i++) o.v[i] = 0;
}

// ---- the bucket accumulation's Fp operations (fl_*) ----
// The accumulator's coordinates stay below 2p instead of p — products skip
// their final subtraction (field.cuh's Lazy), sums and differences are taken
// mod 2p, zero is 0 or p — and are made canonical (fl_canon) before they
// leave the accumulation (xyzz_to_jac, xyzz_double). With the dedicated
// squaring, the G1 accumulation at 2^24 131.2 → 120.1 ms on the H200
// (cuda/DESIGN.md).
static __device__ __constant__ uint32_t FP_2P[12] = {0xffff5556u, 0x73fdffffu, 0x62a7ffffu, 0x3d57fffdu,
                                                     0xed61ec48u, 0xce61a541u, 0xe70a257eu, 0xc8ee9709u,
                                                     0x869759aeu, 0x96374f6cu, 0x72ffcd34u, 0x340223d4u};
__device__ __forceinline__ fp_t fl_mul(const fp_t& a, const fp_t& b) {
    return mont_mul<12, true>(a, b, FP_P, FP_PINV);
}
__device__ __forceinline__ fp_t fl_sqr(const fp_t& a) { return mont_sqr<12, true>(a, FP_P, FP_PINV); }
__device__ __forceinline__ fp_t fl_add(const fp_t& a, const fp_t& b) { return mod_add<12>(a, b, FP_2P); }
__device__ __forceinline__ fp_t fl_sub(const fp_t& a, const fp_t& b) { return mod_sub<12>(a, b, FP_2P); }
__device__ __forceinline__ fp_t fl_canon(const fp_t& a) {
    fp_t r;
    reduce_once<12>(r.v, a.v, FP_P);
    return r;
}
__device__ __forceinline__ bool fl_is_zero(const fp_t& a) {
    uint32_t z = 0, e = 0;  // a = 0, a = p
#pragma unroll
    for (int i = 0; i < 12; i++) {
        z |= a.v[i];
        e |= a.v[i] ^ FP_P[i];
    }
    return z == 0 || e == 0;
}
__device__ __forceinline__ fp_t fl_dbl(const fp_t& a) { return fl_add(a, a); }

// ---- Fp2 = Fp[u]/(u^2 + 1): c0 + c1·u, gnark-crypto's E2{A0, A1} ----
struct fp2_t {
    fp_t c0, c1;
};

__device__ __forceinline__ fp2_t f_add(const fp2_t& a, const fp2_t& b) { return {f_add(a.c0, b.c0), f_add(a.c1, b.c1)}; }
__device__ __forceinline__ fp2_t f_sub(const fp2_t& a, const fp2_t& b) { return {f_sub(a.c0, b.c0), f_sub(a.c1, b.c1)}; }
__device__ __forceinline__ fp2_t f_dbl(const fp2_t& a) { return {f_dbl(a.c0), f_dbl(a.c1)}; }
__device__ __forceinline__ fp2_t f_neg(const fp2_t& a) { return {f_neg(a.c0), f_neg(a.c1)}; }

// Karatsuba: (a0 + a1u)(b0 + b1u) = (a0b0 − a1b1) + ((a0 + a1)(b0 + b1) − a0b0 − a1b1)u
// Fp2 products are calls, not inlined: inlined, the G2 kernels took ptxas
// 7 minutes to build and spilled anyway.
static __device__ __noinline__ fp2_t f_mul(const fp2_t& a, const fp2_t& b) {
    fp_t v0 = f_mul(a.c0, b.c0), v1 = f_mul(a.c1, b.c1);
    fp_t s = f_mul(f_add(a.c0, a.c1), f_add(b.c0, b.c1));
    return {f_sub(v0, v1), f_sub(f_sub(s, v0), v1)};
}

// (a0 + a1u)^2 = (a0 + a1)(a0 − a1) + 2a0a1·u
static __device__ __noinline__ fp2_t f_sqr(const fp2_t& a) {
    return {f_mul(f_add(a.c0, a.c1), f_sub(a.c0, a.c1)), f_dbl(f_mul(a.c0, a.c1))};
}

__device__ __forceinline__ bool f_is_zero(const fp2_t& a) { return f_is_zero(a.c0) && f_is_zero(a.c1); }

__device__ __forceinline__ void f_set_one(fp2_t& o) {
    f_set_one(o.c0);
    f_set_zero(o.c1);
}

__device__ __forceinline__ void f_set_zero(fp2_t& o) {
    f_set_zero(o.c0);
    f_set_zero(o.c1);
}

// Fp2's accumulation operations are the usual ones (canonical values).
__device__ __forceinline__ fp2_t fl_mul(const fp2_t& a, const fp2_t& b) { return f_mul(a, b); }
__device__ __forceinline__ fp2_t fl_sqr(const fp2_t& a) { return f_sqr(a); }
__device__ __forceinline__ fp2_t fl_add(const fp2_t& a, const fp2_t& b) { return f_add(a, b); }
__device__ __forceinline__ fp2_t fl_sub(const fp2_t& a, const fp2_t& b) { return f_sub(a, b); }
__device__ __forceinline__ fp2_t fl_dbl(const fp2_t& a) { return f_dbl(a); }
__device__ __forceinline__ fp2_t fl_canon(const fp2_t& a) { return a; }
__device__ __forceinline__ bool fl_is_zero(const fp2_t& a) { return f_is_zero(a); }

// ---- points over F (fp_t: G1, fp2_t: G2) ----
template <class F>
struct affine_t {
    F x, y;  // (0, 0) is the point at infinity, as in gnark-crypto
};

template <class F>
struct jac_t {
    F x, y, z;  // z = 0: the point at infinity
};

typedef affine_t<fp_t> g1_affine;
typedef jac_t<fp_t> g1_jac;
typedef affine_t<fp2_t> g2_affine;
typedef jac_t<fp2_t> g2_jac;

template <class F>
__device__ __forceinline__ jac_t<F> pt_infinity() {
    jac_t<F> r;
    f_set_one(r.x);
    f_set_one(r.y);
    f_set_zero(r.z);
    return r;
}

template <class F>
__device__ __forceinline__ bool pt_is_inf(const jac_t<F>& p) {
    return f_is_zero(p.z);
}

template <class F>
__device__ __forceinline__ bool pt_is_inf(const affine_t<F>& a) {
    return f_is_zero(a.x) && f_is_zero(a.y);
}

template <class F>
__device__ __forceinline__ jac_t<F> pt_from_affine(const affine_t<F>& a) {
    jac_t<F> r;
    r.x = a.x;
    r.y = a.y;
    f_set_one(r.z);
    return r;
}

// dbl-2009-l
template <class F>
__device__ __forceinline__ jac_t<F> pt_double(const jac_t<F>& p) {
    if (pt_is_inf(p)) return p;
    F A = f_sqr(p.x), B = f_sqr(p.y), C = f_sqr(B);
    F D = f_dbl(f_sub(f_sub(f_sqr(f_add(p.x, B)), A), C));
    F E = f_add(f_dbl(A), A);
    F G = f_sqr(E);
    jac_t<F> r;
    r.x = f_sub(G, f_dbl(D));
    F C8 = f_dbl(f_dbl(f_dbl(C)));
    r.y = f_sub(f_mul(E, f_sub(D, r.x)), C8);
    r.z = f_dbl(f_mul(p.y, p.z));
    return r;
}

// madd-2007-bl: p + (a, 1)
template <class F>
__device__ __forceinline__ jac_t<F> pt_add_mixed(const jac_t<F>& p, const affine_t<F>& a) {
    if (pt_is_inf(a)) return p;
    if (pt_is_inf(p)) return pt_from_affine(a);
    F Z1Z1 = f_sqr(p.z);
    F U2 = f_mul(a.x, Z1Z1);
    F S2 = f_mul(f_mul(a.y, p.z), Z1Z1);
    F H = f_sub(U2, p.x);
    F rr = f_dbl(f_sub(S2, p.y));
    if (f_is_zero(H)) {
        if (f_is_zero(rr)) return pt_double(pt_from_affine(a));
        return pt_infinity<F>();
    }
    F HH = f_sqr(H);
    F I = f_dbl(f_dbl(HH));
    F J = f_mul(H, I);
    F V = f_mul(p.x, I);
    jac_t<F> r;
    r.x = f_sub(f_sub(f_sqr(rr), J), f_dbl(V));
    r.y = f_sub(f_mul(rr, f_sub(V, r.x)), f_dbl(f_mul(p.y, J)));
    r.z = f_sub(f_sub(f_sqr(f_add(p.z, H)), Z1Z1), HH);
    return r;
}

// add-2007-bl
template <class F>
__device__ __forceinline__ jac_t<F> pt_add(const jac_t<F>& p, const jac_t<F>& q) {
    if (pt_is_inf(p)) return q;
    if (pt_is_inf(q)) return p;
    F Z1Z1 = f_sqr(p.z), Z2Z2 = f_sqr(q.z);
    F U1 = f_mul(p.x, Z2Z2), U2 = f_mul(q.x, Z1Z1);
    F S1 = f_mul(f_mul(p.y, q.z), Z2Z2);
    F S2 = f_mul(f_mul(q.y, p.z), Z1Z1);
    F H = f_sub(U2, U1);
    F rr = f_dbl(f_sub(S2, S1));
    if (f_is_zero(H)) {
        if (f_is_zero(rr)) return pt_double(p);
        return pt_infinity<F>();
    }
    F I = f_sqr(f_dbl(H));
    F J = f_mul(H, I);
    F V = f_mul(U1, I);
    jac_t<F> r;
    r.x = f_sub(f_sub(f_sqr(rr), J), f_dbl(V));
    r.y = f_sub(f_mul(rr, f_sub(V, r.x)), f_dbl(f_mul(S1, J)));
    r.z = f_mul(f_sub(f_sub(f_sqr(f_add(p.z, q.z)), Z1Z1), Z2Z2), H);
    return r;
}

// k·p for a small non-negative k.
template <class F>
__device__ __forceinline__ jac_t<F> pt_mul_small(const jac_t<F>& p, uint32_t k) {
    jac_t<F> r = pt_infinity<F>();
    if (k == 0) return r;
    for (int bit = 31; bit >= 0; bit--) {
        if ((k >> bit) == 0) continue;
        r = pt_double(r);
        if ((k >> bit) & 1) r = pt_add(r, p);
    }
    return r;
}

template <class F>
__device__ __forceinline__ affine_t<F> pt_neg(const affine_t<F>& a) {
    return {a.x, f_neg(a.y)};  // infinity (0, 0) stays (0, 0)
}

// ---- extended Jacobian ("XYZZ") coordinates for the bucket accumulation:
// x = X/ZZ, y = Y/ZZZ with ZZ^3 = ZZZ^2; ZZ = 0 is the point at infinity.
// Formulas from the Explicit-Formulas Database (g1p/xyzz, a = 0):
// madd-2008-s (8M + 2S, against 7M + 4S for the Jacobian madd-2007-bl) and
// mdbl-2008-s / dbl-2008-s for the doubling cases.
template <class F>
struct xyzz_t {
    F x, y, zz, zzz;
};

template <class F>
__device__ __forceinline__ xyzz_t<F> xyzz_infinity() {
    xyzz_t<F> r;
    f_set_one(r.x);
    f_set_one(r.y);
    f_set_zero(r.zz);
    f_set_zero(r.zzz);
    return r;
}

// The canonical coordinates of an accumulator (fl_canon).
template <class F>
__device__ __forceinline__ xyzz_t<F> xyzz_canon(const xyzz_t<F>& p) {
    return {fl_canon(p.x), fl_canon(p.y), fl_canon(p.zz), fl_canon(p.zzz)};
}

// dbl-2008-s (of an accumulator: its coordinates made canonical first)
template <class F>
__device__ __forceinline__ xyzz_t<F> xyzz_double(const xyzz_t<F>& acc) {
    const xyzz_t<F> p = xyzz_canon(acc);
    if (f_is_zero(p.zz)) return p;
    F U = f_dbl(p.y), V = f_sqr(U), W = f_mul(U, V), S = f_mul(p.x, V);
    F X2 = f_sqr(p.x), M = f_add(f_dbl(X2), X2);
    xyzz_t<F> r;
    r.x = f_sub(f_sqr(M), f_dbl(S));
    r.y = f_sub(f_mul(M, f_sub(S, r.x)), f_mul(W, p.y));
    r.zz = f_mul(V, p.zz);
    r.zzz = f_mul(W, p.zzz);
    return r;
}

// madd-2008-s: p + a, in the accumulation's operations (fl_*: the
// result's coordinates are below 2p, not canonical).
template <class F>
__device__ __forceinline__ xyzz_t<F> xyzz_add_mixed(const xyzz_t<F>& p, const affine_t<F>& a) {
    if (pt_is_inf(a)) return p;
    if (fl_is_zero(p.zz)) {
        xyzz_t<F> r;
        r.x = a.x;
        r.y = a.y;
        f_set_one(r.zz);
        f_set_one(r.zzz);
        return r;
    }
    F P = fl_sub(fl_mul(a.x, p.zz), p.x);
    F R = fl_sub(fl_mul(a.y, p.zzz), p.y);
    if (fl_is_zero(P)) {
        if (!fl_is_zero(R)) return xyzz_infinity<F>();
        xyzz_t<F> q;  // p = a: double it
        q.x = a.x;
        q.y = a.y;
        f_set_one(q.zz);
        f_set_one(q.zzz);
        return xyzz_double(q);
    }
    F PP = fl_sqr(P), PPP = fl_mul(P, PP), Q = fl_mul(p.x, PP);
    xyzz_t<F> r;
    r.x = fl_sub(fl_sub(fl_sqr(R), PPP), fl_dbl(Q));
    r.y = fl_sub(fl_mul(R, fl_sub(Q, r.x)), fl_mul(p.y, PPP));
    r.zz = fl_mul(p.zz, PP);
    r.zzz = fl_mul(p.zzz, PPP);
    return r;
}

// To Jacobian: (X·ZZ², Y·ZZZ², ZZZ), since ZZZ²/ZZ = ZZ² when ZZ³ = ZZZ².
template <class F>
__device__ __forceinline__ jac_t<F> xyzz_to_jac(const xyzz_t<F>& acc) {
    const xyzz_t<F> p = xyzz_canon(acc);
    if (f_is_zero(p.zz)) return pt_infinity<F>();
    jac_t<F> r;
    r.x = f_mul(p.x, f_sqr(p.zz));
    r.y = f_mul(p.y, f_sqr(p.zzz));
    r.z = p.zzz;
    return r;
}
