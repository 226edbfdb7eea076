// Host <-> device copies of large host buffers that are not page-locked
// (Go slices): a pinned double buffer per device, filled or drained by
// several host threads while the DMA engine moves the other half. A plain
// cudaMemcpy from pageable memory measured ~5 GB/s on the H200 host (h at
// 2^24: 410-450 ms host to host, most of it copies); this reaches the
// memcpy rate of several cores and overlaps it with the transfer.
#pragma once
#include <cuda_runtime.h>
#include <string.h>

#include <algorithm>
#include <mutex>
#include <thread>
#include <vector>

#include "util/common.cuh"

namespace cuzk {

class stager {
   public:
    static const size_t CHUNK = 64u << 20;

    // get returns device dev's stager (created on first use); nullptr with
    // a message when pinned memory cannot be had.
    static stager* get(int dev, char* err, size_t errlen) {
        static std::mutex mu;
        static std::vector<stager*> all;
        std::lock_guard<std::mutex> g(mu);
        if ((int)all.size() <= dev) all.resize(dev + 1, nullptr);
        if (!all[dev]) {
            stager* s = new stager();
            if (s->init(dev, err, errlen)) {
                delete s;
                return nullptr;
            }
            all[dev] = s;
        }
        return all[dev];
    }

    // h2d copies bytes from host src to device dst.
    int h2d(void* dst, const void* src, size_t bytes, char* err, size_t errlen) {
        std::lock_guard<std::mutex> g(mu_);
        for (size_t off = 0, k = 0; off < bytes; off += CHUNK, k++) {
            size_t len = std::min(CHUNK, bytes - off);
            int b = k & 1;
            CKR(cudaEventSynchronize(ev_[b]));  // the DMA that last read pin_[b] is done
            par_copy(pin_[b], (const char*)src + off, len);
            CKR(cudaMemcpyAsync((char*)dst + off, pin_[b], len, cudaMemcpyHostToDevice, st_));
            CKR(cudaEventRecord(ev_[b], st_));
        }
        CKR(cudaStreamSynchronize(st_));
        return 0;
    }

    // d2h copies bytes from device src to host dst, after the work queued
    // on the default stream.
    int d2h(void* dst, const void* src, size_t bytes, char* err, size_t errlen) {
        std::lock_guard<std::mutex> g(mu_);
        size_t nchunks = (bytes + CHUNK - 1) / CHUNK;
        auto issue = [&](size_t k) -> cudaError_t {
            size_t off = k * CHUNK, len = std::min(CHUNK, bytes - off);
            cudaError_t e = cudaMemcpyAsync(pin_[k & 1], (const char*)src + off, len, cudaMemcpyDeviceToHost, st_);
            return e == cudaSuccess ? cudaEventRecord(ev_[k & 1], st_) : e;
        };
        CKR(cudaDeviceSynchronize());  // the kernels that produced src
        if (nchunks) CKR(issue(0));
        for (size_t k = 0; k < nchunks; k++) {
            if (k + 1 < nchunks) CKR(issue(k + 1));
            CKR(cudaEventSynchronize(ev_[k & 1]));
            size_t off = k * CHUNK, len = std::min(CHUNK, bytes - off);
            par_copy((char*)dst + off, pin_[k & 1], len);
        }
        return 0;
    }

   private:
    std::mutex mu_;
    char* pin_[2] = {nullptr, nullptr};
    cudaEvent_t ev_[2] = {nullptr, nullptr};
    cudaStream_t st_ = nullptr;
    int threads_ = 1;

    int init(int dev, char* err, size_t errlen) {
        CKR(cudaSetDevice(dev));
        for (int i = 0; i < 2; i++) {
            CKR(cudaMallocHost((void**)&pin_[i], CHUNK));
            CKR(cudaEventCreateWithFlags(&ev_[i], cudaEventDisableTiming));
            CKR(cudaEventRecord(ev_[i]));
        }
        // its own stream, not synchronized with the default one: a prefetch
        // of the witness runs beside the h stage's kernels
        CKR(cudaStreamCreateWithFlags(&st_, cudaStreamNonBlocking));
        threads_ = (int)std::max(1u, std::min(8u, std::thread::hardware_concurrency() / 2));
        return 0;
    }

    void par_copy(void* dst, const void* src, size_t len) {
        const size_t MIN = 4u << 20;  // below this one thread is as fast
        int t = (int)std::min<size_t>(threads_, std::max<size_t>(1, len / MIN));
        if (t <= 1) {
            memcpy(dst, src, len);
            return;
        }
        size_t per = (len + t - 1) / t;
        std::vector<std::thread> ws;
        for (int i = 1; i < t; i++) {
            size_t off = i * per;
            if (off >= len) break;
            ws.emplace_back([=] { memcpy((char*)dst + off, (const char*)src + off, std::min(per, len - off)); });
        }
        memcpy(dst, src, std::min(per, len));
        for (auto& w : ws) w.join();
    }
};

// page_locked reports whether host memory p is pinned or registered
// (cuzk_cuda_host_register): then one direct copy runs at the link's rate.
static inline bool page_locked(const void* p) {
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();  // pageable memory may report an error: clear it
        return false;
    }
    return a.type == cudaMemoryTypeHost;
}

// device_stream sets *out to device dev's stream number Which (created on
// first use, non-blocking, kept; one per device for the whole library: an
// inline function with external linkage has one static across the .cu
// files); a non-zero code with a message on failure.
template <int Which>
inline int device_stream(int dev, cudaStream_t* out, char* err, size_t errlen) {
    static std::mutex mu;
    static std::vector<cudaStream_t> all;
    std::lock_guard<std::mutex> g(mu);
    if ((int)all.size() <= dev) all.resize(dev + 1, nullptr);
    if (!all[dev]) {
        cudaError_t e = cudaStreamCreateWithFlags(&all[dev], cudaStreamNonBlocking);
        if (e != cudaSuccess) {
            cudaGetLastError();
            all[dev] = nullptr;
            return fail(err, errlen, cuda_code(e), "cudaStreamCreateWithFlags: %s", cudaGetErrorString(e));
        }
    }
    *out = all[dev];
    return 0;
}

// copy_stream is the stream for asynchronous copies of page-locked memory
// that overlap kernels (the a, b, c prefetch, streamed point chunks).
static inline int copy_stream(int dev, cudaStream_t* out, char* err, size_t errlen) {
    return device_stream<0>(dev, out, err, errlen);
}

// upload and download: direct for page-locked host memory, else through
// the device's stager. A direct upload runs on a stream of its own, not
// the legacy default stream: there it would wait for, and hold up, the
// kernels another worker has queued on the device (the engine uploads a
// partition's aux before taking the device's lock), nor the copy stream,
// whose queued prefetches it would wait for. dst must not be
// stream-ordered memory in use by queued kernels (fresh allocations are
// not).
static inline int upload_bytes(int dev, void* dst, const void* src, size_t bytes, char* err, size_t errlen) {
    if (bytes && page_locked(src)) {
        cudaStream_t cs = nullptr;
        if (int rc = device_stream<1>(dev, &cs, err, errlen)) return rc;
        CKR(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, cs));
        CKR(cudaStreamSynchronize(cs));
        return 0;
    }
    stager* s = stager::get(dev, err, errlen);
    return s ? s->h2d(dst, src, bytes, err, errlen) : 2;
}

static inline int download_bytes(int dev, void* dst, const void* src, size_t bytes, char* err, size_t errlen) {
    if (bytes && page_locked(dst)) {
        CKR(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
        return 0;
    }
    stager* s = stager::get(dev, err, errlen);
    return s ? s->d2h(dst, src, bytes, err, errlen) : 2;
}

}  // namespace cuzk
