// The MSM's kernels, over the field of the curve, in the order msm.cuh's
// driver launches them: the 0/1 split of the scalars (k_classify,
// k_compact), the pairs (k_ones, k_pairs), the pieces of the sorted pairs
// (k_subcount, k_subdesc), the accumulation (k_subsum, k_piece_jac), the pieces' tree
// (k_tree), the bucket sums (k_clear, k_bucketsum), the running sums
// (k_segments) and the window sums (k_windows).
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "curve/curve.cuh"

namespace {

const uint32_t SUB = 256;  // pairs a cell (one accumulating thread; 512 measured no better, cuda/DESIGN.md)
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
//
// A piece's end is a branch that the warp takes for each of its threads
// in turn, so it holds as little as can be: the sum is stored as it is
// (XYZZ, not yet reduced), k_piece_jac converts every piece afterwards, and
// the next piece's end comes without a dependent load (the pieces tile the
// valid pairs in order, so it starts where this one ends; its length is
// loaded a piece ahead). With the conversion in the branch, a piece end
// cost the warp ~2.6 additions: with buckets about SUB pairs long (a chunk
// of 2^23 points of a 2^26 set streamed under a cap) every thread has one,
// and the accumulation of 2^23 points at c = 16 took 67.3 ms against 60.7
// a 2^23 share of 2^24 and 55.7 of 2^26 (H200; the cost fits 54.1 ms plus
// 13.2 ms per piece end a cell).
//
// S is the pieces' store: xyzz_t (the sums as they are, k_piece_jac after
// it) or, when the device has no room for those, jac_t (converted in the
// branch, as before).
template <class F>
__device__ __forceinline__ void piece_store(xyzz_t<F>* out, uint32_t i, const xyzz_t<F>& acc) {
    out[i] = acc;
}
template <class F>
__device__ __forceinline__ void piece_store(jac_t<F>* out, uint32_t i, const xyzz_t<F>& acc) {
    out[i] = xyzz_to_jac(acc);
}

const int SUBSUM_BLOCKS = 2;
template <class F, class S>
__global__ void __launch_bounds__(128, SUBSUM_BLOCKS)
    k_subsum(const uint32_t* start, const uint32_t* len, uint32_t npieces, const uint32_t* cellfirst, uint32_t ncell,
             uint32_t valid, const uint32_t* vals, const affine_t<F>* pts, S* partial) {
    uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= ncell) return;
    uint32_t piece = cellfirst[j];
    const uint32_t first = j * SUB, end = min(valid, first + SUB);
    uint32_t pend = start[piece] + len[piece];
    uint32_t nlen = len[min(piece + 1, npieces - 1)];  // the next piece's length
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
            piece_store<F>(partial, piece, acc);
            acc = xyzz_infinity<F>();
            piece++;
            pend += nlen;
            nlen = len[min(piece + 1, npieces - 1)];
        }
        p = q;
        cur = nxt;
    }
}

// The pieces' sums from k_subsum's XYZZ into Jacobian coordinates, for the
// tree.
template <class F>
__global__ void k_piece_jac(const xyzz_t<F>* in, uint32_t total, jac_t<F>* out) {
    uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < total) out[j] = xyzz_to_jac(in[j]);
}

// Each bucket with pairs set to its pieces' sum (the tree left it in the
// first piece), or, for a streamed set's chunk (add), that sum added to it.
template <class F>
__global__ void k_bucketsum(const uint32_t* uniq, const uint32_t* sub, const uint32_t* suboff, const int* nruns,
                            const jac_t<F>* partial, jac_t<F>* buckets, bool add) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= *nruns || uniq[b] == SKIP || sub[b] == 0) return;
    const jac_t<F>& sum = partial[suboff[b]];
    buckets[uniq[b]] = add ? pt_add(buckets[uniq[b]], sum) : sum;
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

}  // namespace
