// The MSM's pass planning (msm.cuh's msm_device), a pure function of the
// sizes, the memory available and the options, so that it is checked on
// the host (hosttest.cpp op 20, TestHostArithPlanPasses) on machines
// without a GPU. Host-only: no CUDA here.
#pragma once
#include <stddef.h>

#include <algorithm>

namespace cuzk {

// A pass holds fewer than 2^32 − 4·SUB pairs (SUB = 256 pairs a cell,
// msm/kernels.cuh): the cells' edges stay below 2^32.
constexpr size_t PASS_PAIRS_LIMIT = (1ull << 32) - 4 * 256;

// max_pairs is the most pairs one pass may hold. Their scratch is ~32 bytes
// a pair (keys and values twice, the sort's temporary storage, the pieces'
// sums), given 3/4 of available_bytes, the memory available within the
// device's cap (util/common.cuh's available()); forced_pairs (the
// msm_max_pairs option, 0: none) lowers it (the tests force several passes
// with it). 0 available: unknown without a cap (one pass), no room under
// one (capped: one window a pass, whose allocation then fails with the
// cap's error).
inline size_t max_pairs(size_t available_bytes, bool capped, size_t forced_pairs) {
    size_t cap = PASS_PAIRS_LIMIT;
    if (available_bytes || capped) cap = std::min(cap, available_bytes / 4 * 3 / 32);
    if (forced_pairs > 0) cap = std::min(cap, forced_pairs);
    return cap;
}

// plan_passes is the windows a pass of an MSM over nw windows, with n_dense
// dense scalars (a pair each a window) and n_ones ones (a pair each, with
// window 0): as many as max_pairs allows, at least one; all nw when no
// scalar is dense.
inline int plan_passes(size_t n_dense, size_t n_ones, int nw, size_t available_bytes, bool capped,
                       size_t forced_pairs) {
    const size_t budget = max_pairs(available_bytes, capped, forced_pairs);
    int per = nw;
    if (n_dense > 0)
        per = (int)std::max<size_t>(1, std::min<size_t>(nw, (budget > n_ones ? budget - n_ones : 0) / n_dense));
    return per;
}

}  // namespace cuzk
