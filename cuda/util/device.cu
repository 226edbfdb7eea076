// The device functions behind cuzk_cuda.h (api_device.cu wraps them): the
// devices and their memory, a device's options and memory count
// (cuzk_cuda_set_options, cuzk_cuda_memory; the accounting itself is in
// common.cuh), and host memory's registration.
#include <stdio.h>

#include "api.h"
#include "util/common.cuh"

using cuzk::fail;

namespace {

int check_device(int dev, char* err, size_t errlen) {
    int count = 0;
    CKR(cudaGetDeviceCount(&count));
    if (dev < 0 || dev >= count || dev >= cuzk::MAX_DEVICES)
        return fail(err, errlen, 1, "device %d out of range (%d devices)", dev, count);
    CKR(cudaSetDevice(dev));
    return 0;
}

}  // namespace

int cuzk::set_options(int dev, const cuzk_cuda_options* o, char* err, size_t errlen) {
    if (!o) return fail(err, errlen, 1, "options is NULL");
    if (o->msm_window_bits != 0 && (o->msm_window_bits < 8 || o->msm_window_bits > 20))
        return fail(err, errlen, 1, "msm_window_bits %d: want 0 or 8..20", o->msm_window_bits);
    if ((o->msm_pool != 0 && o->msm_pool != 1) || (o->profile != 0 && o->profile != 1))
        return fail(err, errlen, 1, "msm_pool and profile are 0 or 1");
    if (o->host_sync < 0 || o->host_sync > 3)
        return fail(err, errlen, 1, "host_sync %d: want 0 (auto), 1 (spin), 2 (yield) or 3 (blocking)", o->host_sync);
    if (int rc = check_device(dev, err, errlen)) return rc;
    cuzk::device_state& s = cuzk::state(dev);
    // The pool's idle memory goes back when the pool is turned off or a cap
    // is set (what earlier MSMs left there would count against the cap).
    bool pooled;
    int32_t synced;
    {
        std::lock_guard<std::mutex> g(s.mu);
        pooled = s.opt.msm_pool != 0;
        synced = s.opt.host_sync;
    }
    // The primary context's scheduling flags, its other flags kept; left
    // as the runtime made them while host_sync stays 0.
    if (o->host_sync != 0 || synced != 0) {
        static const unsigned sched[] = {cudaDeviceScheduleAuto, cudaDeviceScheduleSpin, cudaDeviceScheduleYield,
                                         cudaDeviceScheduleBlockingSync};
        unsigned flags = 0;
        CKR(cudaGetDeviceFlags(&flags));
        if ((flags & cudaDeviceScheduleMask) != sched[o->host_sync])
            CKR(cudaSetDeviceFlags(sched[o->host_sync] | (flags & (cudaDeviceMapHost | cudaDeviceLmemResizeToMax))));
    }
    if ((!o->msm_pool || o->max_device_memory) && pooled) cuzk::trim_pool();
    // Twiddle tables kept from other sizes go too: under a cap only the
    // size in use is planned for (ntt/twiddles.cuh).
    if (o->max_device_memory) cuzk::trim_twiddles(dev);
    std::lock_guard<std::mutex> g(s.mu);
    s.opt = *o;
    s.peak = cuzk::held_locked(s);  // the peak counts from the options in force
    return 0;
}

int cuzk::memory(int dev, uint64_t* held, uint64_t* peak, uint64_t* cap, uint64_t* pool, int reset_peak, char* err,
                 size_t errlen) {
    if (!held || !peak || !cap) return fail(err, errlen, 1, "NULL argument");
    if (int rc = check_device(dev, err, errlen)) return rc;
    cuzk::device_state& s = cuzk::state(dev);
    std::lock_guard<std::mutex> g(s.mu);
    // one reading of the pool for held and pool (it may grow meanwhile:
    // cudaMallocAsync runs outside s.mu), so that pool <= held
    uint64_t reserved = 0;
    const size_t h = cuzk::held_locked(s, &reserved);
    s.peak = std::max(s.peak, h);
    *held = h;
    *peak = s.peak;
    *cap = s.opt.max_device_memory;
    if (pool) *pool = s.opt.msm_pool ? reserved : 0;
    if (reset_peak) s.peak = h;
    return 0;
}

int cuzk::device_count(int* count, char* err, size_t errlen) {
    if (!count) return fail(err, errlen, 1, "count is NULL");
    cudaError_t e = cudaGetDeviceCount(count);
    if (e != cudaSuccess) {
        *count = 0;
        return fail(err, errlen, cuzk::cuda_code(e), "cudaGetDeviceCount: %s", cudaGetErrorString(e));
    }
    return 0;
}

int cuzk::device_info(int dev, char* name, size_t namelen, size_t* total, size_t* freeb, char* err, size_t errlen) {
    int rc = 0;
    cudaDeviceProp p;
    CK(cudaSetDevice(dev));
    CK(cudaGetDeviceProperties(&p, dev));
    if (name && namelen) snprintf(name, namelen, "%s", p.name);
    if (total && freeb) {
        CK(cudaMemGetInfo(freeb, total));
        *freeb += cuzk::pool_idle();  // the MSM pool's idle bytes are free to the caller too
    }
done:
    return rc;
}

int cuzk::host_register(void* p, size_t bytes, char* err, size_t errlen) {
    if (!p || !bytes) return fail(err, errlen, 1, "NULL or empty host buffer");
    CKR(cudaHostRegister(p, bytes, cudaHostRegisterPortable));
    return 0;
}

int cuzk::host_register_read_only(void* p, size_t bytes, char* err, size_t errlen) {
    if (!p || !bytes) return fail(err, errlen, 1, "NULL or empty host buffer");
    CKR(cudaHostRegister(p, bytes, cudaHostRegisterPortable | cudaHostRegisterReadOnly));
    return 0;
}

int cuzk::host_unregister(void* p, char* err, size_t errlen) {
    if (!p) return fail(err, errlen, 1, "NULL host buffer");
    CKR(cudaHostUnregister(p));
    return 0;
}
