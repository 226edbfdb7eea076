// The domain's constants as the caller passes them (cuzk_cuda.h) and the
// twiddle tables computed from them, kept per device and size.
#pragma once
#include <string.h>

#include <mutex>
#include <vector>

#include "field/field.cuh"
#include "ntt/kernels.cuh"
#include "util/common.cuh"

namespace {

using cuzk::blocks;
using cuzk::THREADS;

struct consts_t {
    fr_t omega, omega_inv, n_inv, g, g_inv, z_inv;
};

// Twiddle tables (n/2 powers of omega and of its inverse) per device and
// size, computed once and kept: n·32 bytes of device memory a size.
struct twiddles {
    int dev;
    size_t n;
    fr_t omega;
    fr_t* tw;
    fr_t* twi;
};

int get_twiddles(int dev, size_t n, const consts_t& k, const fr_t** tw, const fr_t** twi, char* err, size_t errlen) {
    static std::mutex mu;
    static std::vector<twiddles> cache;
    std::lock_guard<std::mutex> g(mu);
    for (auto& t : cache)
        if (t.dev == dev && t.n == n && memcmp(&t.omega, &k.omega, sizeof(fr_t)) == 0) {
            *tw = t.tw;
            *twi = t.twi;
            return 0;
        }
    int rc = 0;
    size_t half = n / 2 ? n / 2 : 1;
    twiddles t{dev, n, k.omega, nullptr, nullptr};
    CK(cuzk::dev_malloc(&t.tw, half * sizeof(fr_t)));
    CK(cuzk::dev_malloc(&t.twi, half * sizeof(fr_t)));
    k_twiddles<<<blocks(half), THREADS>>>(t.tw, half, k.omega);
    CKLAUNCH();
    k_twiddles<<<blocks(half), THREADS>>>(t.twi, half, k.omega_inv);
    CKLAUNCH();
    cache.push_back(t);
    *tw = t.tw;
    *twi = t.twi;
    return 0;
done:
    cuzk::dev_free(t.tw);
    cuzk::dev_free(t.twi);
    return rc;
}

}  // namespace
