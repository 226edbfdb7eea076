// Points as a parameter file stores them (bellperson's uncompressed
// encoding) turned into the kernels' layout (gnark-crypto's: little-endian
// limbs in Montgomery form, (0, 0) for infinity), one point a thread: a
// streamed set is then copied from the file's pages as they are and
// converted on the device, with no decoded copy on the host.
//
// G1: x, y, 48 bytes each, big-endian; G2: x.c1, x.c0, y.c1, y.c0. The
// first byte's top three bits are flags: 0x40 alone is the point at
// infinity (every other bit zero), 0 a finite point. The file was checked
// when it was loaded (canonical coordinates, on the curve, in the
// subgroup) and is read again only while its stamp is unchanged, so the
// conversion does not check again.
#pragma once
#include "curve/curve.cuh"

// R² mod p (R = 2^384): x·R² through Montgomery's product is x·R.
static __device__ __constant__ uint32_t FP_R2[12] = {0x1c341746u, 0xf4df1f34u, 0x09d104f1u, 0x0a76e6a6u,
                                                     0x4c95b6d5u, 0x8de5476cu, 0x939d83c0u, 0x67eb88a9u,
                                                     0xb519952du, 0x9a793e85u, 0x92cae3aau, 0x11988fe5u};

__device__ __forceinline__ uint32_t bswap32(uint32_t w) {
#ifdef __CUDA_ARCH__
    return __byte_perm(w, 0, 0x0123);
#else
    return __builtin_bswap32(w);
#endif
}

// fp_from_be reads 48 big-endian bytes (as 12 words loaded from memory),
// the flag bits cleared when flags, into Montgomery form.
__device__ __forceinline__ fp_t fp_from_be(const uint32_t* w, bool flags) {
    fp_t a, r2;
#pragma unroll
    for (int j = 0; j < 12; j++) {
        a.v[11 - j] = bswap32(w[j]);
        r2.v[j] = FP_R2[j];
    }
    if (flags) a.v[11] &= 0x1fffffffu;
    return f_mul(a, r2);
}

// raw_is_inf: the flags of a point's first byte say infinity.
__device__ __forceinline__ bool raw_is_inf(const uint32_t* w) { return (w[0] & 0xe0u) == 0x40u; }

// raw_words is a point's encoding in 32-bit words: 24 for G1, 48 for G2
// (sizeof the affine point, which the conversion overwrites in place).
template <class F>
struct raw_words;
template <>
struct raw_words<fp_t> {
    static constexpr int n = 24;
};
template <>
struct raw_words<fp2_t> {
    static constexpr int n = 48;
};

__device__ __forceinline__ void from_raw(g1_affine& p, const uint32_t* w) {
    if (raw_is_inf(w)) {
        f_set_zero(p.x);
        f_set_zero(p.y);
        return;
    }
    p.x = fp_from_be(w, true);
    p.y = fp_from_be(w + 12, false);
}

__device__ __forceinline__ void from_raw(g2_affine& p, const uint32_t* w) {
    if (raw_is_inf(w)) {
        f_set_zero(p.x);
        f_set_zero(p.y);
        return;
    }
    p.x.c1 = fp_from_be(w, true);
    p.x.c0 = fp_from_be(w + 12, false);
    p.y.c1 = fp_from_be(w + 24, false);
    p.y.c0 = fp_from_be(w + 36, false);
}

// affine_from_raw converts the encoded point at p in place.
template <class F>
__device__ __forceinline__ void affine_from_raw(affine_t<F>* p) {
    static_assert(sizeof(affine_t<F>) == 4 * raw_words<F>::n, "an encoded point is as long as an affine one");
    uint32_t w[raw_words<F>::n];
    const uint32_t* src = reinterpret_cast<const uint32_t*>(p);
#pragma unroll
    for (int i = 0; i < raw_words<F>::n; i++) w[i] = src[i];
    affine_t<F> out;
    from_raw(out, w);
    *p = out;
}
