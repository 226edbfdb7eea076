// Host build of the kernels' arithmetic (field/field.cuh, curve/curve.cuh
// with the carry-flag emulation), driven by
// core/backend/cuda/hostarith_test.go, which compares every answer with
// gnark-crypto. Requests on stdin, answers on stdout, both raw
// little-endian in gnark-crypto's memory layouts:
//   op 1/2/3   fr mul/add/sub  (a, b: 32 bytes each)        -> 32 bytes
//   op 4/5/6/7 fp mul/add/sub/neg (a, b: 48 bytes each)     -> 48 bytes
//   op 8/9     fp2 mul/sqr (a, b: 96 bytes each)            -> 96 bytes
//   op 10/11   G1/G2 sum: u32 count, count affine points    -> three Jacobian
//              points: the XYZZ mixed sum, the Jacobian mixed sum, and
//              twice the XYZZ sum
//   op 12      signed digits: scalar (32 bytes, Montgomery), u32 c (8-24)
//              -> u32 negated, u32 nw, 32 int32 digits
//   op 14      fp sqr (a: 48 bytes)                         -> 48 bytes
//   op 16      NTT stages: u32 n (≤ 2^16), u32 m (2m < n), n/2 twiddles, n
//              elements -> the elements after fr_radix2 stages m and 2m, then
//              after one fr_radix4 pass at m (2n elements)
//   op 15      coset scaling (fr_powscale_run for every thread): u32 n, u32 T,
//              u32 use_pow, base, c, one (32 bytes each), n elements -> n
//              elements
//   op 17/18   G1/G2 subgroup check (subgroup.cuh's in_subgroup): u32
//              count, count affine points -> count bytes, 1 in the subgroup
//   op 19      subgroup.cuh's constants -> β, ψ's x factor (imaginary
//              part), ψ's y factor (real, imaginary): 48 bytes each
//   op 13      the accumulation's Fp operations (fl_*, on values below
//              2p): a, b (48 bytes each) -> a·b, a², a + b,
//              a − b, canonical a (48 bytes each), u32 a is zero
//   op 20      the MSM's pass planning (msm/plan.h): u64 n_dense, u64
//              n_ones, u32 nw, u64 available bytes, u32 capped, u64 forced
//              pairs -> i32 windows a pass (plan_passes), u64 max_pairs
//   op 21/22   G1/G2 points as a parameter file stores them (curve/raw.cuh's
//              affine_from_raw): u32 count, count encoded points (96/192
//              bytes) -> count affine points
// Build: g++ -O1 -std=c++17 -Icuda -x c++ cuda/hosttest.cpp -o hosttest
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve/curve.cuh"
#include "curve/raw.cuh"
#include "msm/plan.h"
#include "subgroup/subgroup.cuh"

namespace {

bool get(void* p, size_t n) { return fread(p, 1, n, stdin) == n; }
void put(const void* p, size_t n) { fwrite(p, 1, n, stdout); }

template <class F>
bool sum(void) {
    uint32_t count;
    if (!get(&count, 4)) return false;
    xyzz_t<F> x = xyzz_infinity<F>();
    jac_t<F> j = pt_infinity<F>();
    for (uint32_t i = 0; i < count; i++) {
        affine_t<F> a;
        if (!get(&a, sizeof a)) return false;
        x = xyzz_add_mixed(x, a);
        j = pt_add_mixed(j, a);
    }
    jac_t<F> out[3] = {xyzz_to_jac(x), j, xyzz_to_jac(xyzz_double(x))};
    put(out, sizeof out);
    return true;
}

template <class F>
bool subgroup(void) {
    uint32_t count;
    if (!get(&count, 4)) return false;
    for (uint32_t i = 0; i < count; i++) {
        affine_t<F> a;
        if (!get(&a, sizeof a)) return false;
        const unsigned char in = in_subgroup(a) ? 1 : 0;
        put(&in, 1);
    }
    return true;
}

template <class F>
bool from_file(void) {
    uint32_t count;
    if (!get(&count, 4)) return false;
    for (uint32_t i = 0; i < count; i++) {
        affine_t<F> a;
        if (!get(&a, sizeof a)) return false;
        affine_from_raw(&a);
        put(&a, sizeof a);
    }
    return true;
}

fr_t mont_to_regular(const fr_t& a) {
    fr_t one = {};
    one.v[0] = 1;
    return fr_mul(a, one);
}

}  // namespace

int main() {
    unsigned char op;
    while (get(&op, 1)) {
        bool ok = true;
        switch (op) {
            case 1:
            case 2:
            case 3: {
                fr_t a, b, r;
                ok = get(&a, 32) && get(&b, 32);
                r = op == 1 ? fr_mul(a, b) : op == 2 ? fr_add(a, b) : fr_sub(a, b);
                put(&r, 32);
                break;
            }
            case 4:
            case 5:
            case 6:
            case 7: {
                fp_t a, b, r;
                ok = get(&a, 48) && get(&b, 48);
                r = op == 4 ? f_mul(a, b) : op == 5 ? f_add(a, b) : op == 6 ? f_sub(a, b) : f_neg(a);
                put(&r, 48);
                break;
            }
            case 8:
            case 9: {
                fp2_t a, b, r;
                ok = get(&a, 96) && get(&b, 96);
                r = op == 8 ? f_mul(a, b) : f_sqr(a);
                put(&r, 96);
                break;
            }
            case 10:
                ok = sum<fp_t>();
                break;
            case 11:
                ok = sum<fp2_t>();
                break;
            case 21:
                ok = from_file<fp_t>();
                break;
            case 22:
                ok = from_file<fp2_t>();
                break;
            case 17:
                ok = subgroup<fp_t>();
                break;
            case 18:
                ok = subgroup<fp2_t>();
                break;
            case 19: {
                const fp_t k[4] = {subgroup_const(SUBGROUP_BETA), subgroup_const(SUBGROUP_PSI_X1),
                                   subgroup_const(SUBGROUP_PSI_Y0), subgroup_const(SUBGROUP_PSI_Y1)};
                put(k, sizeof k);
                break;
            }
            case 12: {
                fr_t k;
                uint32_t c;
                ok = get(&k, 32) && get(&c, 4) && c >= 8 && c <= 24;
                if (!ok) break;
                int32_t d[32] = {};
                uint32_t nw = (255 + c - 1) / c;
                uint32_t neg = fr_signed_digits(mont_to_regular(k), (int)c, (int)nw, [&](int w, int32_t v) { d[w] = v; });
                put(&neg, 4);
                put(&nw, 4);
                put(d, sizeof d);
                break;
            }
            case 16: {
                uint32_t n, m;
                ok = get(&n, 4) && get(&m, 4) && n >= 4 && n <= (1u << 16) && (n & (n - 1)) == 0 && m >= 1 &&
                     (m & (m - 1)) == 0 && 2 * m < n;
                if (!ok) break;
                fr_t* tw = new fr_t[n / 2];
                fr_t* x = new fr_t[n];
                fr_t* y = new fr_t[n];
                ok = get(tw, (size_t)n / 2 * 32) && get(x, (size_t)n * 32);
                if (ok) {
                    memcpy(y, x, (size_t)n * 32);
                    for (size_t i = 0; i < n / 2; i++) fr_radix2(x, n, m, tw, i);
                    for (size_t i = 0; i < n / 2; i++) fr_radix2(x, n, 2 * m, tw, i);
                    for (size_t i = 0; i < n / 4; i++) fr_radix4(y, n, m, tw, i);
                    put(x, (size_t)n * 32);
                    put(y, (size_t)n * 32);
                }
                delete[] tw;
                delete[] x;
                delete[] y;
                break;
            }
            case 15: {
                uint32_t n, T, use_pow;
                fr_t base, c, one;
                ok = get(&n, 4) && get(&T, 4) && get(&use_pow, 4) && get(&base, 32) && get(&c, 32) && get(&one, 32) &&
                     n <= (1u << 20) && T >= 1;
                if (!ok) break;
                fr_t* x = new fr_t[n ? n : 1];
                ok = get(x, (size_t)n * 32);
                if (ok) {
                    for (uint32_t t = 0; t < T; t++) fr_powscale_run(x, n, T, t, base, c, use_pow != 0, one);
                    put(x, (size_t)n * 32);
                }
                delete[] x;
                break;
            }
            case 14: {
                fp_t a, r;
                ok = get(&a, 48);
                r = f_sqr(a);
                put(&r, 48);
                break;
            }
            case 20: {
                uint64_t n_dense, n_ones, avail, forced;
                uint32_t nw, capped;
                ok = get(&n_dense, 8) && get(&n_ones, 8) && get(&nw, 4) && get(&avail, 8) && get(&capped, 4) &&
                     get(&forced, 8) && nw >= 1 && nw <= 256;
                if (!ok) break;
                const int32_t per = cuzk::plan_passes(n_dense, n_ones, (int)nw, avail, capped != 0, forced);
                const uint64_t pairs = cuzk::max_pairs(avail, capped != 0, forced);
                put(&per, 4);
                put(&pairs, 8);
                break;
            }
            case 13: {
                fp_t a, b;
                ok = get(&a, 48) && get(&b, 48);
                if (!ok) break;
                fp_t r[5] = {fl_mul(a, b), fl_sqr(a), fl_add(a, b), fl_sub(a, b), fl_canon(a)};
                uint32_t z = fl_is_zero(a);
                put(r, sizeof r);
                put(&z, 4);
                break;
            }
            default:
                fprintf(stderr, "hosttest: unknown op %d\n", op);
                return 2;
        }
        if (!ok) {
            fprintf(stderr, "hosttest: truncated request for op %d\n", op);
            return 2;
        }
    }
    return 0;
}
