// Multi-scalar multiplication in G1 and G2 (Pippenger, "bucket method";
// Bernstein et al. and Bootle et al., https://eprint.iacr.org/2012/549
// section 4), written once over the field of the curve.
//
//   0. scalars split into zeros (dropped), ones (one pair each, in window
//      0's first bucket) and the rest (the dense part, compacted): the 0/1
//      scalars of a PoRep partition's queries (95-99%) cost one pair and
//      one mixed addition each instead of nw sorted keys;
//   1. scalars to regular form and signed c-bit digits (fr_signed_digits:
//      |digit| ≤ 2^(c−1), so half the buckets; a scalar above (r−1)/2 is
//      replaced by r − k with the point negated); each (point, window) pair
//      gets a key (window, |digit| − 1) and a value (point index, sign bit),
//      digit 0 dropped;
//   2. pairs sorted by key (CUB radix sort), then run-length encoded into
//      buckets;
//   3. the sorted pairs cut into cells of SUB, and each bucket into pieces
//      at the cells' edges, so that every thread adds SUB points whatever
//      the buckets' sizes and a skewed distribution (all scalars 1, or all
//      equal) spreads over threads; one thread sums a cell's pieces with
//      mixed additions in XYZZ coordinates, then a log-depth tree sums each
//      bucket's pieces;
//   4. per window Σ j·B_j by running sums over SEG segments in parallel;
//   5. windows combined by Horner's rule.
// The tests compare every result with gnark-crypto's MultiExp.
// The kernels are in kernels.cuh; entry.cuh holds the functions behind the
// C ABI that call msm_device.
#pragma once
#include <cub/cub.cuh>
#include <algorithm>
#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve/points.cuh"
#include "cuzk_cuda.h"
#include "msm/kernels.cuh"
#include "util/common.cuh"

namespace {

using cuzk::blocks;
using cuzk::fail;
using cuzk::THREADS;

// dmem owns a device allocation: an MSM's scratch, from the stream-ordered
// pool (common.cuh; with the msm_pool option off: from dev_malloc). Both
// count against the device's cap.
struct dmem {
    void* p = nullptr;
    bool pooled = false;
    ~dmem() { release(); }
    cudaError_t alloc(size_t n) {
        pooled = cuzk::msm_pool() && cuzk::device_pool() != nullptr;
        return pooled ? cuzk::pooled_malloc(&p, n) : cuzk::dev_malloc(&p, n);
    }
    void release() {  // early, for room (cudaFree waits for the kernels using it)
        if (p && pooled)
            cudaFreeAsync(p, 0);
        else if (p)
            cuzk::dev_free(p);
        p = nullptr;
    }
    template <typename T>
    T* as() { return static_cast<T*>(p); }
};

// An MSM's result as cuzk_cuda.h returns it: the window sums, which the
// caller combines by Horner's rule. That is ~c·nw serial doublings: ~7 ms
// for one GPU thread at 2^24 (most of run C's "windows" phase), microseconds
// on a CPU.
template <class F>
struct msm_result {
    int32_t c, nw, pad[2];
    jac_t<F> w[CUZK_CUDA_MAX_WINDOWS];
};

using cuzk::point_set;

// Window size: the accumulation costs n·⌈255/c⌉ mixed additions, the
// running sums ~2·2^(c−1) additions per window (signed digits), so large
// windows pay off up to c = 16 at 2^24 (the G1 MSM on the H200 at c = 15 /
// 16 / 17: 170 / 164 / 191 ms, cuda/NOTES.md). A narrow top window
// crowds many points into each of its buckets; the pieces' tree
// (k_tree) keeps that cheap.
int window_bits(size_t n) {
    const int forced = cuzk::options().msm_window_bits;  // set_options checked 0 or 8..20
    if (forced) return forced;
    int lg = 0;
    while (((size_t)1 << lg) < n) lg++;
    int c = lg - 8;
    return c < 8 ? 8 : (c > 16 ? 16 : c);
}

// msm on device-resident points and scalars (regular form computed here).
// The pairs one pass may hold: their scratch is ~32 bytes a pair (keys and
// values twice, the sort's temporary storage, the pieces' sums), given
// 3/4 of the memory available within the device's cap (common.cuh); the
// msm_max_pairs option lowers it (the tests force several passes with it).
size_t max_pairs() {
    const cuzk_cuda_options o = cuzk::options();
    size_t cap = (1ull << 32) - 4 * SUB;  // cells' edges stay below 2^32
    // 0 available: unknown without a cap (one pass), no room under one
    // (one window a pass: its allocation then fails with the cap's error)
    const size_t a = cuzk::available();
    if (a || o.max_device_memory) cap = std::min(cap, a / 4 * 3 / 32);
    const size_t forced = o.msm_max_pairs;
    if (forced > 0) cap = std::min(cap, forced);
    return cap;
}

// One pass of an MSM over windows w0 .. w0 + nwg − 1 of nw (c bits each):
// the pairs of the m dense scalars (indices dense) and of the n1 ones
// (indices ones; n1 = 0 unless w0 = 0), sorted into buckets, accumulated
// and reduced to the window sums out_w[0 .. nwg − 1] (host memory).
template <class F>
int msm_pass(const point_set<F>* set, const fr_t* d_scalars, const uint32_t* dense, size_t m, const uint32_t* ones, size_t n1,
             int c, int nw, int w0, int nwg, jac_t<F>* out_w, cuzk::phases& ph, char* err, size_t errlen) {
    const size_t np = (size_t)nwg * m + n1;
    dmem keys, vals, keys2, vals2, uniq, counts, offs, nruns, sub, suboff, tmp;
    CKR(keys.alloc(np * 4));
    CKR(vals.alloc(np * 4));
    CKR(keys2.alloc(np * 4));
    CKR(vals2.alloc(np * 4));
    if (m > 0)
        k_pairs<<<blocks(m), THREADS>>>(d_scalars, dense, m, c, nw, w0, nwg, keys.as<uint32_t>(), vals.as<uint32_t>());
    CKR(cudaGetLastError());
    if (n1 > 0)
        k_ones<<<blocks(n1), THREADS>>>(ones, n1, keys.as<uint32_t>() + (size_t)nwg * m, vals.as<uint32_t>() + (size_t)nwg * m);
    CKR(cudaGetLastError());
    ph.mark("pairs");
    // The sort looks at the keys' low bits only: a bucket key is below
    // nwg << (c − 1), so bit kb and the bits above are 0, and SKIP has bit
    // kb set (it still sorts last): 20 bits at 2^24 (c = 16, 16 windows),
    // three 8-bit passes instead of four.
    int kb = c - 1;
    while (((size_t)1 << kb) < ((size_t)nwg << (c - 1))) kb++;
    const int end_bit = kb + 1;
    size_t tbytes = 0, t2 = 0, t3 = 0;
    CKR(cub::DeviceRadixSort::SortPairs(nullptr, tbytes, keys.as<uint32_t>(), keys2.as<uint32_t>(), vals.as<uint32_t>(),
                                        vals2.as<uint32_t>(), np, 0, end_bit));
    CKR(cub::DeviceRunLengthEncode::Encode(nullptr, t2, keys2.as<uint32_t>(), keys.as<uint32_t>(), vals.as<uint32_t>(),
                                           (int*)nullptr, np));
    tbytes = tbytes > t2 ? tbytes : t2;
    CKR(tmp.alloc(tbytes));
    CKR(cub::DeviceRadixSort::SortPairs(tmp.p, tbytes, keys.as<uint32_t>(), keys2.as<uint32_t>(), vals.as<uint32_t>(),
                                        vals2.as<uint32_t>(), np, 0, end_bit));
    ph.mark("sort");
    // keys2/vals2: sorted. Reuse keys as the unique keys and vals as counts.
    CKR(nruns.alloc(sizeof(int)));
    t2 = tbytes;
    CKR(cub::DeviceRunLengthEncode::Encode(tmp.p, t2, keys2.as<uint32_t>(), keys.as<uint32_t>(), vals.as<uint32_t>(),
                                           nruns.as<int>(), np));
    int runs = 0;
    CKR(cudaMemcpy(&runs, nruns.p, sizeof(int), cudaMemcpyDeviceToHost));
    if (runs == 0) return fail(err, errlen, 2, "msm: no runs among %zu pairs", np);  // every pair has a key
    uint32_t* d_uniq = keys.as<uint32_t>();
    uint32_t* d_counts = vals.as<uint32_t>();
    CKR(offs.alloc((size_t)(runs + 1) * 4));
    CKR(sub.alloc((size_t)(runs + 1) * 4));
    CKR(suboff.alloc((size_t)(runs + 1) * 4));
    CKR(cub::DeviceScan::ExclusiveSum(nullptr, t3, d_counts, offs.as<uint32_t>(), runs));
    dmem tmp2;
    CKR(tmp2.alloc(t3 + 16));
    CKR(cub::DeviceScan::ExclusiveSum(tmp2.p, t3, d_counts, offs.as<uint32_t>(), runs));
    k_subcount<<<blocks(runs), THREADS>>>(d_counts, offs.as<uint32_t>(), d_uniq, nruns.as<int>(), sub.as<uint32_t>());
    CKR(cudaGetLastError());
    CKR(cub::DeviceScan::ExclusiveSum(tmp2.p, t3, sub.as<uint32_t>(), suboff.as<uint32_t>(), runs));
    uint32_t last_off = 0, last_sub = 0, last_key = 0, last_count = 0;
    CKR(cudaMemcpy(&last_off, suboff.as<uint32_t>() + runs - 1, 4, cudaMemcpyDeviceToHost));
    CKR(cudaMemcpy(&last_sub, sub.as<uint32_t>() + runs - 1, 4, cudaMemcpyDeviceToHost));
    CKR(cudaMemcpy(&last_key, d_uniq + runs - 1, 4, cudaMemcpyDeviceToHost));
    CKR(cudaMemcpy(&last_count, d_counts + runs - 1, 4, cudaMemcpyDeviceToHost));
    const uint32_t total = last_off + last_sub;                                   // pieces
    const uint32_t valid = (uint32_t)np - (last_key == SKIP ? last_count : 0);  // the skipped pairs sort last
    const uint32_t ncell = (uint32_t)(((size_t)valid + SUB - 1) / SUB);
    ph.mark("buckets");
    dmem sstart, slen, owner, cellfirst, partial, buckets, segs, win;
    CKR(owner.alloc((size_t)(total + 1) * 4));
    CKR(sstart.alloc((size_t)(total + 1) * 4));
    CKR(slen.alloc((size_t)(total + 1) * 4));
    CKR(cellfirst.alloc((size_t)(ncell + 1) * 4));
    CKR(partial.alloc((size_t)(total + 1) * sizeof(jac_t<F>)));
    k_subdesc<<<blocks(runs), THREADS>>>(d_counts, offs.as<uint32_t>(), sub.as<uint32_t>(), suboff.as<uint32_t>(),
                                          nruns.as<int>(), sstart.as<uint32_t>(), slen.as<uint32_t>(), owner.as<uint32_t>(),
                                          cellfirst.as<uint32_t>());
    CKR(cudaGetLastError());
    if (total > 0)
        k_subsum<<<(ncell + 127) / 128, 128>>>(sstart.as<uint32_t>(), slen.as<uint32_t>(), cellfirst.as<uint32_t>(), ncell,
                                               valid, vals2.as<uint32_t>(), set->pts, partial.as<jac_t<F>>());
    CKR(cudaGetLastError());
    ph.mark("accumulate");
    if (total > 0) {
        // the largest bucket's piece count bounds the tree's rounds
        dmem maxsub, tmp3;
        size_t t4 = 0;
        CKR(maxsub.alloc(4));
        CKR(cub::DeviceReduce::Max(nullptr, t4, sub.as<uint32_t>(), maxsub.as<uint32_t>(), runs));
        CKR(tmp3.alloc(t4 + 16));
        CKR(cub::DeviceReduce::Max(tmp3.p, t4, sub.as<uint32_t>(), maxsub.as<uint32_t>(), runs));
        uint32_t most = 0;
        CKR(cudaMemcpy(&most, maxsub.p, 4, cudaMemcpyDeviceToHost));
        for (uint32_t stride = 1; stride < most; stride <<= 1) {
            k_tree<<<(total + 127) / 128, 128>>>(owner.as<uint32_t>(), sub.as<uint32_t>(), suboff.as<uint32_t>(), total,
                                                 stride, partial.as<jac_t<F>>());
            CKR(cudaGetLastError());
        }
    }
    size_t nbk = (size_t)nwg << (c - 1);
    CKR(buckets.alloc(nbk * sizeof(jac_t<F>)));
    k_clear<<<blocks(nbk), THREADS>>>(buckets.as<jac_t<F>>(), nbk);
    CKR(cudaGetLastError());
    k_bucketsum<<<blocks(runs), THREADS>>>(d_uniq, sub.as<uint32_t>(), suboff.as<uint32_t>(), nruns.as<int>(),
                                            partial.as<jac_t<F>>(), buckets.as<jac_t<F>>());
    CKR(cudaGetLastError());
    ph.mark("bucket sums");
    CKR(segs.alloc((size_t)nwg * SEG * sizeof(jac_t<F>)));
    CKR(win.alloc((size_t)nwg * sizeof(jac_t<F>)));
    k_segments<<<(unsigned)((nwg * SEG + 63) / 64), 64>>>(buckets.as<jac_t<F>>(), c, nwg, segs.as<jac_t<F>>());
    CKR(cudaGetLastError());
    ph.mark("running sums");
    k_windows<<<nwg, window_threads<F>()>>>(segs.as<jac_t<F>>(), win.as<jac_t<F>>());
    CKR(cudaGetLastError());
    CKR(cudaMemcpy(out_w, win.p, (size_t)nwg * sizeof(jac_t<F>), cudaMemcpyDeviceToHost));
    return 0;
}

template <class F>
int msm_device(const point_set<F>* set, const fr_t* d_scalars, size_t n, msm_result<F>* out, char* err, size_t errlen) {
    cuzk::phases ph("msm");
    ph.mark("start");
    memset(out, 0, sizeof *out);
    if (n >= SIGN) return fail(err, errlen, 1, "msm of %zu points is too large for one call", n);
    // 0. the split: ones and dense scalars compacted, zeros dropped
    dmem cls, pos, ones, dense, scan;
    size_t ts = 0;
    CKR(cls.alloc(n * 8));
    CKR(pos.alloc(n * 8));
    k_classify<<<blocks(n), THREADS>>>(d_scalars, n, cls.as<uint64_t>());
    CKR(cudaGetLastError());
    CKR(cub::DeviceScan::ExclusiveSum(nullptr, ts, cls.as<uint64_t>(), pos.as<uint64_t>(), n));
    CKR(scan.alloc(ts + 16));
    CKR(cub::DeviceScan::ExclusiveSum(scan.p, ts, cls.as<uint64_t>(), pos.as<uint64_t>(), n));
    uint64_t last[2] = {0, 0};
    CKR(cudaMemcpy(&last[0], cls.as<uint64_t>() + n - 1, 8, cudaMemcpyDeviceToHost));
    CKR(cudaMemcpy(&last[1], pos.as<uint64_t>() + n - 1, 8, cudaMemcpyDeviceToHost));
    const uint64_t tot = last[0] + last[1];
    const size_t n1 = (uint32_t)tot, m = tot >> 32;
    CKR(ones.alloc((n1 + 1) * 4));
    CKR(dense.alloc((m + 1) * 4));
    k_compact<<<blocks(n), THREADS>>>(cls.as<uint64_t>(), pos.as<uint64_t>(), n, ones.as<uint32_t>(), dense.as<uint32_t>());
    CKR(cudaGetLastError());
    ph.mark("split");
    cls.release();  // 16 bytes a scalar, not needed by the rest
    pos.release();
    scan.release();
    // The window size still follows all n scalars: sized by the dense part
    // alone (c 11-14 for 3-20% of 2^24) the G2 accumulation measured 68 and
    // 225 ms against 52 and 150 at c = 16 (H200, cuda/NOTES.md).
    int c = window_bits(n);
    int nw = (255 + c - 1) / c;
    out->c = c;
    if (nw > CUZK_CUDA_MAX_WINDOWS) return fail(err, errlen, 1, "%d windows of %d bits: too many", nw, c);
    if (nw * m + n1 == 0) return 0;  // all scalars 0: nw = 0, the point at infinity
    // Windows in passes when the pairs' scratch would not fit (one pass for
    // 2^24 uniform scalars on the H200: 8.6 GB); the ones go with window 0.
    const size_t budget = max_pairs();
    int per = nw;
    if (m > 0) per = (int)std::max<size_t>(1, std::min<size_t>(nw, (budget > n1 ? budget - n1 : 0) / m));
    for (int w0 = 0; w0 < nw; w0 += per) {
        const int nwg = std::min(per, nw - w0);
        const size_t n1g = w0 == 0 ? n1 : 0;
        if ((size_t)nwg * m + n1g >= (1ull << 32)) return fail(err, errlen, 1, "msm of %zu points is too large for one call", n);
        int rc = msm_pass<F>(set, d_scalars, dense.as<uint32_t>(), m, ones.as<uint32_t>(), n1g, c, nw, w0, nwg, out->w + w0, ph,
                             err, errlen);
        if (rc) return rc;
    }
    out->nw = nw;
    ph.mark("windows");
    return 0;
}

}  // namespace
