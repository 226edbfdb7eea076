// Prime-order subgroup membership of BLS12-381 points, one point at a time
// (subgroup.cu runs it one thread a point over a resident set; hosttest.cpp
// runs the same functions on the host). Both tests use an endomorphism
// whose eigenvalue on the order-r subgroup is a polynomial in the curve
// parameter x = −0xd201000000010000, so that a scalar multiplication by
// x or x² (64 or 128 bits) replaces the one by r (255 bits):
//
// G1 (Scott, "A note on group membership tests for G1, G2 and GT on BLS
// pairing-friendly curves", eprint 2021/1130, section 3.1): φ(x, y) =
// (β·x, y) with β a primitive cube root of unity in Fp acts on the order-r
// subgroup as multiplication by a root λ of λ² + λ + 1 ≡ 0 mod r; with the
// β below λ = x² − 1 = −1/x² (r = x⁴ − x² + 1 gives x²·(1 − x²) ≡ 1), so P
// is in G1 iff P = −[x²]φ(P). The other cube root (β²) has the other
// eigenvalue, −x², and would reject every point of G1: the host tests
// compare with gnark-crypto's G1Affine.IsInSubGroup, which makes the same
// choice. [x²] is injective on E(Fp) (its order h1·r is odd and prime to
// x), so [x²]φ(P) is infinity only for P = infinity.
//
// G2 (the same paper, section 4, and eprint 2022/352, section 4.2): ψ =
// untwist ∘ Frobenius ∘ twist on E'(Fp2): y² = x³ + 4ξ, ξ = 1 + u (an
// M-twist): ψ(x, y) = (x̄·ξ^(−(p−1)/3), ȳ·ξ^(−(p−1)/2)) with x̄ the Fp2
// conjugate; on G2 it acts as multiplication by p ≡ x (mod r), so P is in
// G2 iff ψ(P) = [x]P = −[|x|]P (gnark-crypto's G2Affine.IsInSubGroup).
// ξ^(−(p−1)/3) = (β + 1)·u = −β²·u (its real part is 0).
//
// Points are given on the curve (the parameter decoder checks that), with
// canonical coordinates in Montgomery form; (0, 0) is infinity and passes.
// The additions are the general ones (curve.cuh handles P = ±Q and
// infinity), so points with small-order components take the same path.
#pragma once
#include "curve/curve.cuh"

// β (thirdRootOneG1 in gnark-crypto) = 0x1a0111ea397fe699ec02408663d4de85aa0d857d
// 89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaac, in Montgomery limbs.
static __device__ __constant__ uint32_t SUBGROUP_BETA[12] = {
    0x8671f071u, 0xcd03c9e4u, 0x1fcda5d2u, 0x5dab2246u, 0xd3851b95u, 0x587042afu,
    0x01bacb9eu, 0x8eb60ebeu, 0x83d050d2u, 0x03f97d6eu, 0x54638741u, 0x18f02065u};
// ψ's constants: ξ^(−(p−1)/3) = 0 + (β + 1)·u, and ξ^(−(p−1)/2) = v0 + v1·u
// (Montgomery limbs; checked against ξ's powers in hostarith_test.go).
static __device__ __constant__ uint32_t SUBGROUP_PSI_X1[12] = {
    0x867545c3u, 0x890dc9e4u, 0x3285a5d5u, 0x2af32253u, 0x309b7e2cu, 0x50880866u,
    0x7e881024u, 0xa20d1b8cu, 0xe2db9068u, 0x14e4f04fu, 0x1564853au, 0x14e56d3fu};
static __device__ __constant__ uint32_t SUBGROUP_PSI_Y0[12] = {
    0xa55c9ad1u, 0x3e2f585du, 0x86c18183u, 0x4294213du, 0x8b623732u, 0x382844c8u,
    0x19103e18u, 0x92ad2afdu, 0xac7cf0b9u, 0x1d794e4fu, 0x7d825ec8u, 0x0bd592fcu};
static __device__ __constant__ uint32_t SUBGROUP_PSI_Y1[12] = {
    0x5aa30fdau, 0x7bcfa7a2u, 0x2a927e7cu, 0xdc17dec1u, 0x6b4ebef1u, 0x2f088dd8u,
    0xda74d4a7u, 0xd1ca2087u, 0x96cebc1du, 0x2da25966u, 0xbbfd87d2u, 0x0e2b7eedu};

// |x| for BLS12-381: bits 63, 62, 60, 57, 48 and 16 (63 doublings, 5 additions).
#define SUBGROUP_X_ABS 0xd201000000010000ull

__device__ __forceinline__ fp_t subgroup_const(const uint32_t* c) {
    fp_t r;
#pragma unroll
    for (int i = 0; i < 12; i++) r.v[i] = c[i];
    return r;
}

__device__ __forceinline__ bool f_equal(const fp_t& a, const fp_t& b) {
    uint32_t d = 0;
#pragma unroll
    for (int i = 0; i < 12; i++) d |= a.v[i] ^ b.v[i];
    return d == 0;
}

__device__ __forceinline__ bool f_equal(const fp2_t& a, const fp2_t& b) { return f_equal(a.c0, b.c0) && f_equal(a.c1, b.c1); }

// r + q for q affine (mixed) or Jacobian.
template <class F>
__device__ __forceinline__ jac_t<F> subgroup_add(const jac_t<F>& r, const affine_t<F>& q) {
    return pt_add_mixed(r, q);
}
template <class F>
__device__ __forceinline__ jac_t<F> subgroup_add(const jac_t<F>& r, const jac_t<F>& q) {
    return pt_add(r, q);
}
template <class F>
__device__ __forceinline__ jac_t<F> subgroup_jac(const affine_t<F>& q) {
    return pt_from_affine(q);
}
template <class F>
__device__ __forceinline__ jac_t<F> subgroup_jac(const jac_t<F>& q) {
    return q;
}

// [|x|]q by double-and-add from the top bit: the bits are the same in every
// thread, so the warp never diverges on them. Not unrolled: one copy of the
// doubling and of the addition keeps the kernel small.
template <class F, class Q>
__device__ __forceinline__ jac_t<F> mul_by_x_abs(const Q& q) {
    jac_t<F> r = subgroup_jac(q);
#pragma unroll 1
    for (int bit = 62; bit >= 0; bit--) {
        r = pt_double(r);
        if ((SUBGROUP_X_ABS >> bit) & 1) r = subgroup_add(r, q);
    }
    return r;
}

// r = a for a Jacobian r and an affine a other than infinity:
// X = x·Z², Y = y·Z³.
template <class F>
__device__ __forceinline__ bool jac_equals_affine(const jac_t<F>& r, const affine_t<F>& a) {
    if (pt_is_inf(r)) return false;
    const F z2 = f_sqr(r.z);
    return f_equal(r.x, f_mul(a.x, z2)) && f_equal(r.y, f_mul(a.y, f_mul(z2, r.z)));
}

// P in G1 iff −[x²]φ(P) = P, i.e. [x²]φ(P) = −P.
__device__ __forceinline__ bool in_subgroup(const g1_affine& p) {
    if (pt_is_inf(p)) return true;
    const g1_affine phi = {f_mul(p.x, subgroup_const(SUBGROUP_BETA)), p.y};
    const g1_jac xphi = mul_by_x_abs<fp_t>(phi);
    const g1_jac x2phi = mul_by_x_abs<fp_t>(xphi);
    return jac_equals_affine(x2phi, pt_neg(p));
}

// ψ(P): (x̄·(c·u), ȳ·(v0 + v1·u)), with (a0 − a1·u)·(c·u) = a1·c + a0·c·u.
__device__ __forceinline__ g2_affine psi(const g2_affine& p) {
    const fp_t c = subgroup_const(SUBGROUP_PSI_X1);
    const fp2_t v = {subgroup_const(SUBGROUP_PSI_Y0), subgroup_const(SUBGROUP_PSI_Y1)};
    const fp2_t ybar = {p.y.c0, f_neg(p.y.c1)};
    return {{f_mul(p.x.c1, c), f_mul(p.x.c0, c)}, f_mul(ybar, v)};
}

// P in G2 iff ψ(P) = [x]P, i.e. [|x|]P = −ψ(P).
__device__ __forceinline__ bool in_subgroup(const g2_affine& p) {
    if (pt_is_inf(p)) return true;
    const g2_jac xp = mul_by_x_abs<fp2_t>(p);
    return jac_equals_affine(xp, pt_neg(psi(p)));
}
