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
#include "msm/plan.h"
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
// for one GPU thread at 2^24 (measured on the H200 when a GPU thread
// combined them), microseconds on a CPU.
template <class F>
struct msm_result {
    int32_t c, nw, pad[2];
    jac_t<F> w[CUZK_CUDA_MAX_WINDOWS];
};

using cuzk::point_set;

// Window size: the accumulation costs n·⌈255/c⌉ mixed additions, the
// running sums ~2·2^(c−1) additions per window (signed digits), so large
// windows pay off up to c = 16 at 2^24 (the G1 MSM on the H200 at c = 15 /
// 16 / 17: 170 / 164 / 191 ms, cuda/DESIGN.md). A narrow top window
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

// The pass planning (plan.h) counts on SUB.
static_assert(cuzk::PASS_PAIRS_LIMIT == (1ull << 32) - 4 * SUB, "plan.h's limit: SUB pairs a cell");

// One pass's workspace: its device buffers and what its steps find out on
// the host. Each buffer is allocated by the step that first uses it, at the
// size the pass sizing counts on (plan.h's max_pairs: ~32 bytes a pair):
// the pairs' part from the pass's windows, the runs' part after the
// run-length encoding has counted them, the pieces' part after the scans
// have. All are freed when the pass ends, in reverse order of declaration,
// the tree's two temporaries when the tree is done (room for the bucket
// sums).
struct pass_workspace {
    const size_t pairs;  // nwg·m + n1
    explicit pass_workspace(size_t np) : pairs(np) {}

    // pairs × 4 bytes each: the pairs' keys (window, |digit| − 1) and values
    // (point index, sign), then their sorted copies. After the sort, keys
    // and vals are reused for the runs' keys and counts.
    dmem keys, vals, sorted_keys, sorted_vals;
    uint32_t* run_keys() { return keys.as<uint32_t>(); }
    uint32_t* run_counts() { return vals.as<uint32_t>(); }
    // (runs + 1) × 4 bytes each but run_count (one int): each run's first
    // pair, the number of runs, each run's number of pieces and its first
    // piece
    dmem run_offsets, run_count, run_pieces, piece_offsets;
    // CUB's temporary storage: of the sort and the run-length encoding, of
    // the scans
    dmem sort_temp, scan_temp;
    // (pieces + 1) × 4 bytes each: each piece's first sorted pair, its
    // length and its run; (cells + 1) × 4 bytes: each cell's first piece;
    // (pieces + 1) points: each piece's sum; its XYZZ sums (k_subsum's),
    // when they do not fit in sorted_keys
    dmem piece_start, piece_len, piece_run, cell_first_piece, piece_sums, piece_xyzz;
    // nwg·2^(c − 1), nwg·SEG and nwg points
    dmem bucket_sums, segment_sums, window_sums;
    // the tree's: the largest piece count (4 bytes), CUB's temporary
    // storage of its reduction
    dmem max_pieces, max_temp;

    // found by the steps: the temporary storages' sizes (sort_temp's, the
    // larger of the sort's and the run-length encoding's); the runs (the
    // buckets with pairs, and the SKIP run), the pieces, the valid pairs
    // (those before the SKIP run) and the cells of SUB of them
    size_t sort_temp_bytes = 0, scan_temp_bytes = 0;
    int runs = 0;
    uint32_t pieces = 0, valid = 0, cells = 0;
};

// Pairs: nwg windows of each of the m dense scalars (indices dense) and the
// n1 ones (window 0, digit 1), into keys and vals.
int pass_pairs(pass_workspace& ws, const fr_t* d_scalars, const uint32_t* dense, size_t m, const uint32_t* ones,
               size_t n1, int c, int nw, int w0, int nwg, char* err, size_t errlen) {
    CKR(ws.keys.alloc(ws.pairs * 4));
    CKR(ws.vals.alloc(ws.pairs * 4));
    CKR(ws.sorted_keys.alloc(ws.pairs * 4));
    CKR(ws.sorted_vals.alloc(ws.pairs * 4));
    uint32_t* keys = ws.keys.as<uint32_t>();
    uint32_t* vals = ws.vals.as<uint32_t>();
    if (m > 0) k_pairs<<<blocks(m), THREADS>>>(d_scalars, dense, m, c, nw, w0, nwg, keys, vals);
    CKR(cudaGetLastError());
    if (n1 > 0) k_ones<<<blocks(n1), THREADS>>>(ones, n1, keys + (size_t)nwg * m, vals + (size_t)nwg * m);
    CKR(cudaGetLastError());
    return 0;
}

// Sort: the pairs by key (CUB's radix sort) into sorted_keys and
// sorted_vals.
int pass_sort(pass_workspace& ws, int c, int nwg, char* err, size_t errlen) {
    const size_t np = ws.pairs;
    // The sort looks at the keys' low bits only: a bucket key is below
    // nwg << (c − 1), so bit kb and the bits above are 0, and SKIP has bit
    // kb set (it still sorts last): 20 bits at 2^24 (c = 16, 16 windows),
    // three 8-bit passes instead of four.
    int kb = c - 1;
    while (((size_t)1 << kb) < ((size_t)nwg << (c - 1))) kb++;
    const int end_bit = kb + 1;
    uint32_t* keys = ws.keys.as<uint32_t>();
    uint32_t* vals = ws.vals.as<uint32_t>();
    uint32_t* sorted_keys = ws.sorted_keys.as<uint32_t>();
    uint32_t* sorted_vals = ws.sorted_vals.as<uint32_t>();
    size_t encode_bytes = 0;
    CKR(cub::DeviceRadixSort::SortPairs(nullptr, ws.sort_temp_bytes, keys, sorted_keys, vals, sorted_vals, np, 0,
                                        end_bit));
    CKR(cub::DeviceRunLengthEncode::Encode(nullptr, encode_bytes, sorted_keys, keys, vals, (int*)nullptr, np));
    ws.sort_temp_bytes = ws.sort_temp_bytes > encode_bytes ? ws.sort_temp_bytes : encode_bytes;
    CKR(ws.sort_temp.alloc(ws.sort_temp_bytes));
    CKR(cub::DeviceRadixSort::SortPairs(ws.sort_temp.p, ws.sort_temp_bytes, keys, sorted_keys, vals, sorted_vals, np, 0,
                                        end_bit));
    return 0;
}

// Buckets: the sorted keys run-length encoded into runs (the buckets with
// pairs, and the SKIP run last), each run's first pair, its pieces (cut at
// the cells' edges) and its first piece; the runs, pieces, valid pairs and
// cells to the host.
int pass_buckets(pass_workspace& ws, char* err, size_t errlen) {
    const size_t np = ws.pairs;
    CKR(ws.run_count.alloc(sizeof(int)));
    size_t encode_bytes = ws.sort_temp_bytes;
    CKR(cub::DeviceRunLengthEncode::Encode(ws.sort_temp.p, encode_bytes, ws.sorted_keys.as<uint32_t>(),
                                           ws.run_keys(), ws.run_counts(), ws.run_count.as<int>(), np));
    CKR(cudaMemcpy(&ws.runs, ws.run_count.p, sizeof(int), cudaMemcpyDeviceToHost));
    const int runs = ws.runs;
    if (runs == 0) return fail(err, errlen, 2, "msm: no runs among %zu pairs", np);  // every pair has a key
    CKR(ws.run_offsets.alloc((size_t)(runs + 1) * 4));
    CKR(ws.run_pieces.alloc((size_t)(runs + 1) * 4));
    CKR(ws.piece_offsets.alloc((size_t)(runs + 1) * 4));
    uint32_t* run_offsets = ws.run_offsets.as<uint32_t>();
    uint32_t* run_pieces = ws.run_pieces.as<uint32_t>();
    uint32_t* piece_offsets = ws.piece_offsets.as<uint32_t>();
    CKR(cub::DeviceScan::ExclusiveSum(nullptr, ws.scan_temp_bytes, ws.run_counts(), run_offsets, runs));
    CKR(ws.scan_temp.alloc(ws.scan_temp_bytes + 16));
    CKR(cub::DeviceScan::ExclusiveSum(ws.scan_temp.p, ws.scan_temp_bytes, ws.run_counts(), run_offsets, runs));
    k_subcount<<<blocks(runs), THREADS>>>(ws.run_counts(), run_offsets, ws.run_keys(), ws.run_count.as<int>(),
                                          run_pieces);
    CKR(cudaGetLastError());
    CKR(cub::DeviceScan::ExclusiveSum(ws.scan_temp.p, ws.scan_temp_bytes, run_pieces, piece_offsets, runs));
    uint32_t last_off = 0, last_sub = 0, last_key = 0, last_count = 0;
    CKR(cudaMemcpy(&last_off, piece_offsets + runs - 1, 4, cudaMemcpyDeviceToHost));
    CKR(cudaMemcpy(&last_sub, run_pieces + runs - 1, 4, cudaMemcpyDeviceToHost));
    CKR(cudaMemcpy(&last_key, ws.run_keys() + runs - 1, 4, cudaMemcpyDeviceToHost));
    CKR(cudaMemcpy(&last_count, ws.run_counts() + runs - 1, 4, cudaMemcpyDeviceToHost));
    ws.pieces = last_off + last_sub;
    ws.valid = (uint32_t)np - (last_key == SKIP ? last_count : 0);  // the skipped pairs sort last
    ws.cells = (uint32_t)(((size_t)ws.valid + SUB - 1) / SUB);
    return 0;
}

// Descriptors and accumulation: each piece's start, length and run, each
// cell's first piece, then one thread a cell sums its pieces' points into
// piece_sums.
template <class F>
int pass_accumulate(pass_workspace& ws, const point_set<F>* set, char* err, size_t errlen) {
    const uint32_t total = ws.pieces, ncell = ws.cells;
    CKR(ws.piece_run.alloc((size_t)(total + 1) * 4));
    CKR(ws.piece_start.alloc((size_t)(total + 1) * 4));
    CKR(ws.piece_len.alloc((size_t)(total + 1) * 4));
    CKR(ws.cell_first_piece.alloc((size_t)(ncell + 1) * 4));
    CKR(ws.piece_sums.alloc((size_t)(total + 1) * sizeof(jac_t<F>)));
    uint32_t* piece_start = ws.piece_start.as<uint32_t>();
    uint32_t* piece_len = ws.piece_len.as<uint32_t>();
    uint32_t* cell_first_piece = ws.cell_first_piece.as<uint32_t>();
    k_subdesc<<<blocks(ws.runs), THREADS>>>(ws.run_counts(), ws.run_offsets.as<uint32_t>(),
                                             ws.run_pieces.as<uint32_t>(), ws.piece_offsets.as<uint32_t>(),
                                             ws.run_count.as<int>(), piece_start, piece_len,
                                             ws.piece_run.as<uint32_t>(), cell_first_piece);
    CKR(cudaGetLastError());
    if (total > 0) {
        // the XYZZ sums in sorted_keys, free since the run-length encoding,
        // when they fit there (~pairs/256 + runs pieces of 192 bytes (G1)
        // against 4 bytes a pair), else in a buffer of their own; with no
        // room for that one (the pass planning does not count it) k_subsum
        // converts in its branch, slower where buckets are short, never
        // refused
        const size_t xbytes = (size_t)total * sizeof(xyzz_t<F>);
        xyzz_t<F>* px = ws.sorted_keys.as<xyzz_t<F>>();
#ifdef CUZK_CUDA_BENCH
        if (cuzk::force_branch_convert.load(std::memory_order_relaxed)) {
            px = nullptr;  // the bench build's test of the fallback below
        } else
#endif
        if (xbytes > ws.pairs * 4) {
            px = nullptr;
            if (ws.piece_xyzz.alloc(xbytes) == cudaSuccess)
                px = ws.piece_xyzz.as<xyzz_t<F>>();
            else
                cudaGetLastError();
        }
        jac_t<F>* sums = ws.piece_sums.as<jac_t<F>>();
        const unsigned grid = (ncell + 127) / 128;
        const uint32_t* sv = ws.sorted_vals.as<uint32_t>();
        if (px) {
            k_subsum<F><<<grid, 128>>>(piece_start, piece_len, total, cell_first_piece, ncell, ws.valid, sv, set->pts, px);
            k_piece_jac<<<blocks(total), THREADS>>>(px, total, sums);
        } else {
            k_subsum<F><<<grid, 128>>>(piece_start, piece_len, total, cell_first_piece, ncell, ws.valid, sv, set->pts, sums);
        }
        ws.piece_xyzz.release();
    }
    CKR(cudaGetLastError());
    return 0;
}

// Tree: each bucket's piece sums reduced into its first piece, a round for
// each power of two below the largest bucket's piece count.
template <class F>
int pass_tree(pass_workspace& ws, char* err, size_t errlen) {
    const uint32_t total = ws.pieces;
    if (total > 0) {
        // the largest bucket's piece count bounds the tree's rounds
        uint32_t* run_pieces = ws.run_pieces.as<uint32_t>();
        size_t max_bytes = 0;
        CKR(ws.max_pieces.alloc(4));
        CKR(cub::DeviceReduce::Max(nullptr, max_bytes, run_pieces, ws.max_pieces.as<uint32_t>(), ws.runs));
        CKR(ws.max_temp.alloc(max_bytes + 16));
        CKR(cub::DeviceReduce::Max(ws.max_temp.p, max_bytes, run_pieces, ws.max_pieces.as<uint32_t>(), ws.runs));
        uint32_t most = 0;
        CKR(cudaMemcpy(&most, ws.max_pieces.p, 4, cudaMemcpyDeviceToHost));
        for (uint32_t stride = 1; stride < most; stride <<= 1) {
            k_tree<<<(total + 127) / 128, 128>>>(ws.piece_run.as<uint32_t>(), run_pieces,
                                                 ws.piece_offsets.as<uint32_t>(), total, stride,
                                                 ws.piece_sums.as<jac_t<F>>());
            CKR(cudaGetLastError());
        }
        ws.max_temp.release();
        ws.max_pieces.release();
    }
    return 0;
}

// Bucket sums: every bucket of the nwg windows set to its pieces' sum (the
// tree's), or infinity when it has no pairs; with into (a streamed set's
// buckets from the pass's first window), those sums added into them.
template <class F>
int pass_bucket_sums(pass_workspace& ws, int c, int nwg, char* err, size_t errlen, jac_t<F>* into = nullptr) {
    jac_t<F>* bucket_sums = into;
    if (!into) {
        size_t nbk = (size_t)nwg << (c - 1);
        CKR(ws.bucket_sums.alloc(nbk * sizeof(jac_t<F>)));
        bucket_sums = ws.bucket_sums.as<jac_t<F>>();
        k_clear<<<blocks(nbk), THREADS>>>(bucket_sums, nbk);
        CKR(cudaGetLastError());
    }
    k_bucketsum<<<blocks(ws.runs), THREADS>>>(ws.run_keys(), ws.run_pieces.as<uint32_t>(),
                                               ws.piece_offsets.as<uint32_t>(), ws.run_count.as<int>(),
                                               ws.piece_sums.as<jac_t<F>>(), bucket_sums, into != nullptr);
    CKR(cudaGetLastError());
    return 0;
}

// Running sums: Σ j·B_j over each of a window's SEG segments, of the
// buckets of nwg windows (the pass's own, or a streamed set's: buckets).
template <class F>
int pass_running_sums(pass_workspace& ws, int c, int nwg, char* err, size_t errlen, const jac_t<F>* buckets = nullptr) {
    CKR(ws.segment_sums.alloc((size_t)nwg * SEG * sizeof(jac_t<F>)));
    CKR(ws.window_sums.alloc((size_t)nwg * sizeof(jac_t<F>)));
    k_segments<<<(unsigned)((nwg * SEG + 63) / 64), 64>>>(buckets ? buckets : ws.bucket_sums.as<jac_t<F>>(), c, nwg,
                                                          ws.segment_sums.as<jac_t<F>>());
    CKR(cudaGetLastError());
    return 0;
}

// Window sums: each window's segment sums added, into out_w[0 .. nwg − 1]
// (host memory).
template <class F>
int pass_window_sums(pass_workspace& ws, int nwg, jac_t<F>* out_w, char* err, size_t errlen) {
    k_windows<<<nwg, window_threads<F>()>>>(ws.segment_sums.as<jac_t<F>>(), ws.window_sums.as<jac_t<F>>());
    CKR(cudaGetLastError());
    CKR(cudaMemcpy(out_w, ws.window_sums.p, (size_t)nwg * sizeof(jac_t<F>), cudaMemcpyDeviceToHost));
    return 0;
}

// A streamed set's buckets (util/stream.cuh's streamer keeps them): every
// chunk's bucket sums are added into them, and the running and window sums
// are taken once, after the set's last chunk (msm_finish), so that a set
// streamed in k chunks pays them once, not k times, and its window size
// follows the set's size, not the chunk's (at 2^26 in chunks of 2^22: 16
// windows of 16 bits instead of 19 of 14, ~19% fewer additions).
template <class F>
struct msm_acc {
    jac_t<F>* buckets;  // nw << (c − 1) points
    int c, nw;
};

// One pass of an MSM over windows w0 .. w0 + nwg − 1 of nw (c bits each):
// the pairs of the m dense scalars (indices dense) and of the n1 ones
// (indices ones; n1 = 0 unless w0 = 0), sorted into buckets, accumulated
// and reduced to the window sums out_w[0 .. nwg − 1] (host memory); with
// acc, the bucket sums are added into acc's buckets instead.
template <class F>
int msm_pass(const point_set<F>* set, const fr_t* d_scalars, const uint32_t* dense, size_t m, const uint32_t* ones, size_t n1,
             int c, int nw, int w0, int nwg, jac_t<F>* out_w, const msm_acc<F>* acc, cuzk::phases& ph, char* err,
             size_t errlen) {
    pass_workspace ws((size_t)nwg * m + n1);
    if (int rc = pass_pairs(ws, d_scalars, dense, m, ones, n1, c, nw, w0, nwg, err, errlen)) return rc;
    ph.mark("pairs");
    if (int rc = pass_sort(ws, c, nwg, err, errlen)) return rc;
    ph.mark("sort");
    if (int rc = pass_buckets(ws, err, errlen)) return rc;
    ph.mark("buckets");
#ifdef CUZK_CUDA_BENCH
    if (nwg > 1 && cuzk::refuse_pass_scratch.load(std::memory_order_relaxed) > 0 &&
        cuzk::refuse_pass_scratch.fetch_sub(1) > 0)  // the bench build's test of msm_device's retry
        return fail(err, errlen, cuzk::cuda_code(cudaErrorMemoryAllocation), "pass scratch refused (test)");
#endif
    if (int rc = pass_accumulate<F>(ws, set, err, errlen)) return rc;
    ph.mark("accumulate");
    if (int rc = pass_tree<F>(ws, err, errlen)) return rc;
    jac_t<F>* into = acc ? acc->buckets + ((size_t)w0 << (c - 1)) : nullptr;
    if (int rc = pass_bucket_sums<F>(ws, c, nwg, err, errlen, into)) return rc;
    ph.mark("bucket sums");
    if (acc) return 0;  // the set's running and window sums come once, with its last chunk
    if (int rc = pass_running_sums<F>(ws, c, nwg, err, errlen)) return rc;
    ph.mark("running sums");
    return pass_window_sums<F>(ws, nwg, out_w, err, errlen);
}

// msm_finish ends a streamed set's MSM: the running and window sums of
// acc's buckets into out's window sums.
template <class F>
int msm_finish(const msm_acc<F>* acc, msm_result<F>* out, char* err, size_t errlen) {
    memset(out, 0, sizeof *out);
    out->c = acc->c;
    pass_workspace ws(0);
    if (int rc = pass_running_sums<F>(ws, acc->c, acc->nw, err, errlen, acc->buckets)) return rc;
    if (int rc = pass_window_sums<F>(ws, acc->nw, out->w, err, errlen)) return rc;
    out->nw = acc->nw;
    return 0;
}

// msm on device-resident points and scalars: the first n points of set
// and the n scalars d_scalars (Montgomery form; regular form computed
// here), into out's window sums; with acc (a streamed set's chunk), into
// acc's buckets, with acc's window size, and out left empty.
template <class F>
int msm_device(const point_set<F>* set, const fr_t* d_scalars, size_t n, msm_result<F>* out, char* err, size_t errlen,
               const msm_acc<F>* acc = nullptr) {
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
    // 225 ms against 52 and 150 at c = 16 (H200, cuda/DESIGN.md).
    int c = acc ? acc->c : window_bits(n);
    int nw = (255 + c - 1) / c;
    if (acc && acc->nw != nw) return fail(err, errlen, 1, "msm: %d windows of %d bits, the buckets hold %d", nw, c, acc->nw);
    out->c = acc ? 0 : c;
    if (nw > CUZK_CUDA_MAX_WINDOWS) return fail(err, errlen, 1, "%d windows of %d bits: too many", nw, c);
    if (nw * m + n1 == 0) return 0;  // all scalars 0: nw = 0, the point at infinity
    // Windows in passes when the pairs' scratch would not fit (one pass for
    // 2^24 uniform scalars on the H200: 8.6 GB); the ones go with window 0.
    const cuzk_cuda_options o = cuzk::options();
    // A pass whose scratch is refused (memory another thread took after
    // the plan, a prefetch say) runs again with half its windows: a pass
    // changes nothing outside its workspace until its last step (the
    // window sums, or a streamed set's buckets), after its allocations.
    int per = cuzk::plan_passes(m, n1, nw, cuzk::available(), o.max_device_memory != 0, o.msm_max_pairs);
    for (int w0 = 0; w0 < nw;) {
        const int nwg = std::min(per, nw - w0);
        const size_t n1g = w0 == 0 ? n1 : 0;
        if ((size_t)nwg * m + n1g >= (1ull << 32)) return fail(err, errlen, 1, "msm of %zu points is too large for one call", n);
        if ((size_t)nwg * m + n1g == 0) {  // no pairs (every scalar 0 or 1, past window 0): these sums stay at infinity
            w0 += nwg;
            continue;
        }
        int rc = msm_pass<F>(set, d_scalars, dense.as<uint32_t>(), m, ones.as<uint32_t>(), n1g, c, nw, w0, nwg, out->w + w0, acc,
                             ph, err, errlen);
        if (rc == cuzk::cuda_code(cudaErrorMemoryAllocation) && nwg > 1) {
            per = nwg / 2;
            continue;
        }
        if (rc) return rc;
        w0 += nwg;
    }
    out->nw = acc ? 0 : nw;
    ph.mark("windows");
    return 0;
}

}  // namespace
