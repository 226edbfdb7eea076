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
#pragma once
#include <cub/cub.cuh>
#include <algorithm>
#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.cuh"
#include "curve/curve.cuh"
#include "cuzk_cuda.h"
#include "curve/points.cuh"
#include "scalars/scalars.cuh"
#include "util/staging.cuh"
#include "util/stream.cuh"

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

const uint32_t SUB = 256;  // pairs a cell (one accumulating thread; 512 measured no better, cuda/NOTES.md)
const int SEG = 4096;      // running-sum segments per window (reduced by k_windows' threads)
const uint32_t SKIP = 0xffffffffu;
const uint32_t SIGN = 0x80000000u;  // in a pair's value: add the negated point


// to_regular returns a (Montgomery form a·R) as a: a·R · 1 · R^-1.
__device__ __forceinline__ fr_t to_regular(const fr_t& a) {
    fr_t one;
#pragma unroll
    for (int j = 0; j < 8; j++) one.v[j] = 0;
    one.v[0] = 1;
    return fr_mul(a, one);
}

// Class of scalar i as a scan term: 1 for a one (low half), 1 << 32 for a
// dense scalar (neither 0 nor 1); an exclusive sum gives both positions.
__global__ void k_classify(const fr_t* s, size_t n, uint64_t* cls) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    const fr_t k = to_regular(s[i]);
    uint32_t high = 0;
#pragma unroll
    for (int j = 1; j < 8; j++) high |= k.v[j];
    cls[i] = high == 0 && k.v[0] <= 1 ? (uint64_t)k.v[0] : 1ull << 32;
}

// Scatters the indices of the ones and of the dense scalars to their
// compacted positions.
__global__ void k_compact(const uint64_t* cls, const uint64_t* pos, size_t n, uint32_t* ones, uint32_t* dense) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (cls[i] == 1) ones[(uint32_t)pos[i]] = (uint32_t)i;
    if (cls[i] >> 32) dense[pos[i] >> 32] = (uint32_t)i;
}

// A one is the pair (window 0, digit 1): key 0, value its index.
__global__ void k_ones(const uint32_t* ones, size_t n1, uint32_t* keys, uint32_t* vals) {
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= n1) return;
    keys[t] = 0;
    vals[t] = ones[t];
}

// Dense scalar t (index idx[t], Montgomery form) to nw signed digits, of
// which windows w0 .. w0 + nwg − 1 are kept: keys ((w − w0) << (c − 1)) |
// (|digit| − 1), values idx[t] | sign << 31 (the point is negated).
__global__ void k_pairs(const fr_t* s, const uint32_t* idx, size_t m, int c, int nw, int w0, int nwg, uint32_t* keys,
                        uint32_t* vals) {
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= m) return;
    const uint32_t i = idx[t];
    const fr_t k = to_regular(s[i]);
    bool neg = fr_signed_digits(k, c, nw, [&](int wa, int32_t d) {
        if (wa < w0 || wa >= w0 + nwg) return;
        const int w = wa - w0;
        size_t at = (size_t)w * m + t;
        if (d == 0) {
            keys[at] = SKIP;
            vals[at] = (uint32_t)i;
            return;
        }
        uint32_t mag = d < 0 ? (uint32_t)-d : (uint32_t)d;
        keys[at] = ((uint32_t)w << (c - 1)) | (mag - 1);
        vals[at] = (uint32_t)i | (d < 0 ? SIGN : 0u);
    });
    if (neg)
        for (int w = 0; w < nwg; w++) vals[(size_t)w * m + t] ^= SIGN;
}

// Pieces: each bucket (offset o, count k in the sorted pairs) is cut at
// every multiple of SUB inside it, so that the sorted pairs fall into cells
// of SUB pairs (the last one shorter), each cell holding whole pieces. One
// thread sums one cell (k_subsum): every thread adds SUB points, whatever
// the buckets' sizes (cutting each bucket into SUB-long sub-buckets left a
// short last one in about every other bucket at 2^24: 81% of a warp's
// threads active, measured by Nsight Compute).
__global__ void k_subcount(const uint32_t* counts, const uint32_t* offs, const uint32_t* uniq, const int* nruns,
                           uint32_t* sub) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= *nruns) return;
    const uint32_t o = offs[b], k = counts[b];
    sub[b] = uniq[b] == SKIP || k == 0 ? 0 : (o + k - 1) / SUB - o / SUB + 1;
}

// Piece descriptors (start, length, owning bucket) and each cell's first
// piece (the one starting at the cell's first pair).
__global__ void k_subdesc(const uint32_t* counts, const uint32_t* offs, const uint32_t* sub, const uint32_t* suboff,
                          const int* nruns, uint32_t* start, uint32_t* len, uint32_t* owner, uint32_t* cellfirst) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= *nruns) return;
    const uint32_t o = offs[b], end = o + counts[b];
    for (uint32_t s = 0; s < sub[b]; s++) {
        const uint32_t first = s == 0 ? o : (o / SUB + s) * SUB;
        const uint32_t piece = suboff[b] + s;
        start[piece] = first;
        len[piece] = min(end, (first / SUB + 1) * SUB) - first;
        owner[piece] = b;
        if (first % SUB == 0) cellfirst[first / SUB] = piece;
    }
}

// One round of the tree reduction of each bucket's piece sums:
// partial[l] += partial[l + stride] for l a multiple of 2·stride inside the
// bucket. log2(max pieces) rounds leave each bucket's sum in its first
// piece, so a skewed bucket (all scalars 1: ~n/SUB pieces) costs
// log2 rounds instead of a long serial chain.
template <class F>
__global__ void k_tree(const uint32_t* owner, const uint32_t* sub, const uint32_t* suboff, uint32_t total,
                       uint32_t stride, jac_t<F>* partial) {
    uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= total) return;
    uint32_t b = owner[j], l = j - suboff[b];
    if (l % (2 * stride) == 0 && l + stride < sub[b]) partial[j] = pt_add(partial[j], partial[j + stride]);
}

// One thread a cell of SUB sorted pairs (above), accumulating in XYZZ
// coordinates (madd-2008-s: 10 multiplications an addition against 11 in
// Jacobian) and writing each piece's sum where the piece ends. 128 threads
// and at least SUBSUM_BLOCKS (2) blocks per multiprocessor: up to 255
// registers a thread, and no spills (3 blocks cap them at 168 and spill;
// measured at 2^24 on the H200, 2 blocks: G1 165.5 → 157.2 ms, G2 657 →
// 636 ms).
const int SUBSUM_BLOCKS = 2;
template <class F>
__global__ void __launch_bounds__(128, SUBSUM_BLOCKS)
    k_subsum(const uint32_t* start, const uint32_t* len, const uint32_t* cellfirst, uint32_t ncell, uint32_t valid,
             const uint32_t* vals, const affine_t<F>* pts, jac_t<F>* partial) {
    uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= ncell) return;
    uint32_t piece = cellfirst[j];
    const uint32_t first = j * SUB, end = min(valid, first + SUB);
    uint32_t pend = start[piece] + len[piece];
    xyzz_t<F> acc = xyzz_infinity<F>();
    // the next point's load is issued before this point's addition
    uint32_t cur = vals[first];
    affine_t<F> p = pts[cur & ~SIGN];
    for (uint32_t t = first; t < end; t++) {
        uint32_t nxt = t + 1 < end ? vals[t + 1] : cur;
        affine_t<F> q = pts[nxt & ~SIGN];
        if (cur & SIGN) p = pt_neg(p);
        acc = xyzz_add_mixed(acc, p);
        if (t + 1 == pend) {  // the piece ends: its sum, and the next piece
            partial[piece] = xyzz_to_jac(acc);
            acc = xyzz_infinity<F>();
            if (t + 1 < end) {
                piece++;
                pend = start[piece] + len[piece];
            }
        }
        p = q;
        cur = nxt;
    }
}

template <class F>
__global__ void k_bucketsum(const uint32_t* uniq, const uint32_t* sub, const uint32_t* suboff, const int* nruns,
                            const jac_t<F>* partial, jac_t<F>* buckets) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= *nruns || uniq[b] == SKIP || sub[b] == 0) return;
    buckets[uniq[b]] = partial[suboff[b]];  // the tree left the sum here
}

template <class F>
__global__ void k_clear(jac_t<F>* b, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) b[i] = pt_infinity<F>();
}

// Thread (w, s): S = Σ_{j in segment s of window w} (j + 1)·B_j (bucket j
// holds the points of digit ±(j + 1)), by a running sum from the top of the
// segment plus lo·(Σ B_j).
template <class F>
__global__ void __launch_bounds__(64) k_segments(const jac_t<F>* buckets, int c, int nw, jac_t<F>* segs) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nw * SEG) return;
    int w = t / SEG, s = t % SEG;
    uint32_t nb = 1u << (c - 1), per = (nb + SEG - 1) / SEG;
    uint32_t lo = min(nb, s * per), hi = min(nb, (s + 1) * per);
    jac_t<F> run = pt_infinity<F>(), sum = pt_infinity<F>();
    for (uint32_t j = hi; j > lo; j--) {
        run = pt_add(run, buckets[((size_t)w << (c - 1)) + j - 1]);
        sum = pt_add(sum, run);
    }
    if (lo < hi && lo > 0) sum = pt_add(sum, pt_mul_small(run, lo));
    segs[t] = sum;
}

// Threads per window block: 256 G1 points (36 KiB) or 128 G2 points fit
// the 48 KiB of static shared memory.
template <class F>
__host__ __device__ constexpr int window_threads() {
    return sizeof(jac_t<F>) > 200 ? 128 : 256;
}

// One block per window: each thread adds SEG/threads segment sums, then a
// shared-memory tree reduces the block.
template <class F>
__global__ void __launch_bounds__(256) k_windows(const jac_t<F>* segs, jac_t<F>* win) {
    constexpr int WT = window_threads<F>();
    __shared__ jac_t<F> sh[WT];
    int w = blockIdx.x, t = threadIdx.x;
    jac_t<F> acc = pt_infinity<F>();
    for (int s = t; s < SEG; s += WT) acc = pt_add(acc, segs[(size_t)w * SEG + s]);
    sh[t] = acc;
    __syncthreads();
    for (int stride = WT / 2; stride > 0; stride >>= 1) {
        if (t < stride) sh[t] = pt_add(sh[t], sh[t + stride]);
        __syncthreads();
    }
    if (t == 0) win[w] = sh[0];
}

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

namespace {

template <class F>
int upload(int dev, const void* points, size_t n, void** handle, char* err, size_t errlen) {
    if (!points || !handle || n == 0) return fail(err, errlen, 1, "NULL points or handle, or no points");
    CKR(cudaSetDevice(dev));
    point_set<F>* s = new point_set<F>{dev, n, nullptr};
    cudaError_t e = cuzk::dev_malloc(&s->pts, n * sizeof(affine_t<F>));
    if (e == cudaSuccess) e = cudaMemcpy(s->pts, points, n * sizeof(affine_t<F>), cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        cuzk::dev_free(s->pts);
        delete s;
        return fail(err, errlen, cuzk::cuda_code(e), "uploading %zu points: %s", n, cudaGetErrorString(e));
    }
    *handle = s;
    return 0;
}

template <class F>
void release(void* handle) {
    point_set<F>* s = static_cast<point_set<F>*>(handle);
    if (!s) return;
    cudaSetDevice(s->dev);
    cuzk::dev_free(s->pts);
    delete s;
}

template <class F>
int msm(void* handle, const void* scalars, size_t n, void* result, char* err, size_t errlen) {
    point_set<F>* s = static_cast<point_set<F>*>(handle);
    if (!s || !scalars || !result) return fail(err, errlen, 1, "NULL handle, scalars or result");
    if (n > s->n) return fail(err, errlen, 1, "%zu scalars for %zu points", n, s->n);
    CKR(cudaSetDevice(s->dev));
    msm_result<F>* out = static_cast<msm_result<F>*>(result);
    if (n == 0) {
        memset(out, 0, sizeof *out);
        return 0;
    }
    dmem ds;  // written by the copy stream: not from the pool, whose memory is ordered on stream 0
    CKR(cuzk::dev_malloc(&ds.p, n * sizeof(fr_t)));
    if (int rc = cuzk::upload_bytes(s->dev, ds.p, scalars, n * sizeof(fr_t), err, errlen)) return rc;
    return msm_device<F>(s, ds.as<fr_t>(), n, out, err, errlen);
}

// msm over device-resident scalars (a cuzk_cuda_scalars handle): all of
// them, against the set's first points.
template <class F>
int msm_resident(void* handle, void* scalars, void* result, char* err, size_t errlen) {
    point_set<F>* s = static_cast<point_set<F>*>(handle);
    cuzk::scalar_vec* v = static_cast<cuzk::scalar_vec*>(scalars);
    if (!s || !v || !result) return fail(err, errlen, 1, "NULL handle, scalars or result");
    if (v->dev != s->dev) return fail(err, errlen, 1, "points on device %d, scalars on device %d", s->dev, v->dev);
    if (v->n > s->n) return fail(err, errlen, 1, "%zu scalars for %zu points", v->n, s->n);
    CKR(cudaSetDevice(s->dev));
    msm_result<F>* out = static_cast<msm_result<F>*>(result);
    if (v->n == 0) {
        memset(out, 0, sizeof *out);
        return 0;
    }
    return msm_device<F>(s, v->p, v->n, out, err, errlen);
}

// The MSM of a streamer's slot (stream.cuh) against device scalars.
template <class F>
int stream_msm(cuzk::streamer* s, int slot, void* scalars, size_t offset, size_t n, void* result, char* err, size_t errlen) {
    cuzk::scalar_vec* v = static_cast<cuzk::scalar_vec*>(scalars);
    if (!v || !result || slot < 0 || slot > 1) return fail(err, errlen, 1, "NULL argument or slot %d", slot);
    if (v->dev != s->dev) return fail(err, errlen, 1, "points on device %d, scalars on device %d", s->dev, v->dev);
    if (n > s->n[slot] || offset > v->n || n > v->n - offset)
        return fail(err, errlen, 1, "%zu scalars from %zu of %zu against %zu points", n, offset, v->n, s->n[slot]);
    CKR(cudaSetDevice(s->dev));
    msm_result<F>* out = static_cast<msm_result<F>*>(result);
    if (n == 0) {
        memset(out, 0, sizeof *out);
        return 0;
    }
    CKR(cudaStreamWaitEvent(0, s->ready[slot], 0));
    point_set<F> view{s->dev, n, static_cast<affine_t<F>*>(s->pts[slot])};
    int rc = msm_device<F>(&view, v->p + offset, n, out, err, errlen);
    if (rc) {
        // nothing of this MSM, nor a put, still reads the buffers or the
        // host's pages when the caller sees the error
        cudaDeviceSynchronize();
        cudaGetLastError();
    }
    return rc;
}

template <class F>
int bench_msm(void* handle, size_t n, int reps, double* ms, char* err, size_t errlen) {
    point_set<F>* s = static_cast<point_set<F>*>(handle);
    if (!s || !ms || reps < 1 || n > s->n) return fail(err, errlen, 1, "bad arguments");
    CKR(cudaSetDevice(s->dev));
    dmem ds;
    CKR(ds.alloc(n * sizeof(fr_t)));
    msm_result<F>* out = new msm_result<F>;
    k_fill_random<<<blocks(n), THREADS>>>(ds.as<fr_t>(), n, 777u ^ 0x85ebca6bu);
    CKR(cudaGetLastError());
    float t[32];
    if (reps > 32) reps = 32;
    cudaEvent_t e0, e1;
    CKR(cudaEventCreate(&e0));
    CKR(cudaEventCreate(&e1));
    int rc = msm_device<F>(s, ds.as<fr_t>(), n, out, err, errlen);  // warm-up
    for (int r = 0; r < reps && !rc; r++) {
        cudaEventRecord(e0);
        rc = msm_device<F>(s, ds.as<fr_t>(), n, out, err, errlen);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&t[r], e0, e1);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    delete out;
    if (rc) return rc;
    for (int i = 1; i < reps; i++)
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            float x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    *ms = t[reps / 2];
    return 0;
}

}  // namespace

