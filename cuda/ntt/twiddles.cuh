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
// size, computed once and kept while that size is the one in use: n·32
// bytes of device memory. Making a table of a new size frees the device's
// tables of other sizes that no call is using (a partition size rarely
// changes, and the memory plan counts one size's tables), and
// trim_twiddles frees every unused one (cuzk_cuda_set_options with a cap:
// tables kept from earlier sizes would count against it). A call holds
// its table through a twiddle_lease.
struct twiddles {
    int dev;
    size_t n;
    fr_t omega;
    fr_t* tw;
    fr_t* twi;
    int users;
};

std::mutex twiddles_mu;
std::vector<twiddles> twiddles_cache;

// drop_unused frees dev's unused tables (of other sizes than keep_n when
// keep_n is not 0); twiddles_mu held. cudaFree waits for the kernels
// queued before it, so a table is not freed under a kernel still reading it.
void drop_unused(int dev, size_t keep_n) {
    for (size_t i = 0; i < twiddles_cache.size();) {
        twiddles& t = twiddles_cache[i];
        if (t.dev == dev && t.users == 0 && (keep_n == 0 || t.n != keep_n)) {
            cuzk::dev_free(t.tw);
            cuzk::dev_free(t.twi);
            twiddles_cache.erase(twiddles_cache.begin() + i);
        } else {
            i++;
        }
    }
}

// twiddle_lease holds a table for one call: tw and twi stay valid until it
// is destroyed.
struct twiddle_lease {
    const fr_t* tw = nullptr;
    const fr_t* twi = nullptr;
    twiddle_lease() = default;
    twiddle_lease(const twiddle_lease&) = delete;
    twiddle_lease& operator=(const twiddle_lease&) = delete;
    ~twiddle_lease() {
        if (!tw) return;
        std::lock_guard<std::mutex> g(twiddles_mu);
        for (auto& t : twiddles_cache)
            if (t.tw == tw) t.users--;
    }
};

int get_twiddles(int dev, size_t n, const consts_t& k, twiddle_lease* lease, char* err, size_t errlen) {
    std::lock_guard<std::mutex> g(twiddles_mu);
    for (auto& t : twiddles_cache)
        if (t.dev == dev && t.n == n && memcmp(&t.omega, &k.omega, sizeof(fr_t)) == 0) {
            t.users++;
            lease->tw = t.tw;
            lease->twi = t.twi;
            return 0;
        }
    drop_unused(dev, n);
    int rc = 0;
    size_t half = n / 2 ? n / 2 : 1;
    twiddles t{dev, n, k.omega, nullptr, nullptr, 1};
    CK(cuzk::dev_malloc(&t.tw, half * sizeof(fr_t)));
    CK(cuzk::dev_malloc(&t.twi, half * sizeof(fr_t)));
    k_twiddles<<<blocks(half), THREADS>>>(t.tw, half, k.omega);
    CKLAUNCH();
    k_twiddles<<<blocks(half), THREADS>>>(t.twi, half, k.omega_inv);
    CKLAUNCH();
    twiddles_cache.push_back(t);
    lease->tw = t.tw;
    lease->twi = t.twi;
    return 0;
done:
    cuzk::dev_free(t.tw);
    cuzk::dev_free(t.twi);
    return rc;
}

}  // namespace
