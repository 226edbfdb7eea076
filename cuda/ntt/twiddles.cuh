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

// take_unused removes dev's unused tables (of other sizes than keep_n when
// keep_n is not 0) from the cache and returns them; twiddles_mu held. No
// call can lease them once removed, so free_tables frees them after the
// lock is released: cudaFree waits for the device's queued kernels, which
// other devices' calls must not wait for behind the lock.
std::vector<twiddles> take_unused(int dev, size_t keep_n) {
    std::vector<twiddles> out;
    for (size_t i = 0; i < twiddles_cache.size();) {
        twiddles& t = twiddles_cache[i];
        if (t.dev == dev && t.users == 0 && (keep_n == 0 || t.n != keep_n)) {
            out.push_back(t);
            twiddles_cache.erase(twiddles_cache.begin() + i);
        } else {
            i++;
        }
    }
    return out;
}

void free_tables(const std::vector<twiddles>& ts) {
    for (const auto& t : ts) {
        cudaSetDevice(t.dev);
        cuzk::dev_free(t.tw);
        cuzk::dev_free(t.twi);
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

// lease_cached leases dev's table of size n for omega if it is cached;
// twiddles_mu held.
bool lease_cached(int dev, size_t n, const consts_t& k, twiddle_lease* lease) {
    for (auto& t : twiddles_cache)
        if (t.dev == dev && t.n == n && memcmp(&t.omega, &k.omega, sizeof(fr_t)) == 0) {
            t.users++;
            lease->tw = t.tw;
            lease->twi = t.twi;
            return true;
        }
    return false;
}

int get_twiddles(int dev, size_t n, const consts_t& k, twiddle_lease* lease, char* err, size_t errlen) {
    std::vector<twiddles> unused;
    {
        std::lock_guard<std::mutex> g(twiddles_mu);
        if (lease_cached(dev, n, k, lease)) return 0;
        unused = take_unused(dev, n);
    }
    free_tables(unused);  // outside the lock, before this size's tables take the room
    CKR(cudaSetDevice(dev));
    std::lock_guard<std::mutex> g(twiddles_mu);
    if (lease_cached(dev, n, k, lease)) return 0;  // made by another call meanwhile
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
