// The group-independent part of streaming, behind cuzk_cuda.h's stream
// entry points (api_gen.cu wraps them): the streamer's buffers and the
// puts; the MSMs are in msm_g1.cu and msm_g2.cu.
#include <chrono>
#include <new>

#include "api.h"
#include "curve/raw.cuh"
#include "util/common.cuh"
#include "util/staging.cuh"
#include "util/stream.cuh"

using cuzk::fail;
using cuzk::streamer;

void cuzk::stream_free(void* handle) {
    streamer* s = static_cast<streamer*>(handle);
    if (!s) return;
    cudaSetDevice(s->dev);
    for (int i = 0; i < 2; i++) {
        if (s->ready[i]) {
            cudaEventSynchronize(s->ready[i]);  // no copy outlives its buffer
            cudaEventDestroy(s->ready[i]);
        }
        if (s->begin[i]) cudaEventDestroy(s->begin[i]);
        cuzk::dev_free(s->pts[i]);
    }
    cuzk::dev_free(s->acc);
    delete s;
}

int cuzk::stream_new(int dev, int group, size_t chunk, void** handle, char* err, size_t errlen) {
    if (group != 1 && group != 2) return fail(err, errlen, 1, "group %d: want 1 (G1) or 2 (G2)", group);
    const size_t point_bytes = group == 1 ? 96 : 192;  // affine x, y in Fp or Fp2
    if (!handle || chunk == 0 || chunk > ((size_t)1 << 31) || chunk > SIZE_MAX / point_bytes)
        return fail(err, errlen, 1, "NULL handle, or chunk of %zu points (1..2^31)", chunk);
    CKR(cudaSetDevice(dev));
    streamer* s = new (std::nothrow) streamer;
    if (!s) return fail(err, errlen, 2, "out of host memory");
    s->dev = dev;
    s->group = group;
    s->chunk = chunk;
    s->point_bytes = point_bytes;
    for (int i = 0; i < 2; i++) {
        s->pts[i] = nullptr;
        s->n[i] = s->timed_bytes[i] = 0;
        s->ready[i] = s->begin[i] = nullptr;
        s->timed[i] = false;
    }
    for (int i = 0; i < 2; i++) {
        cudaError_t e = cuzk::dev_malloc(&s->pts[i], chunk * point_bytes);
        if (e == cudaSuccess) e = cudaEventCreate(&s->ready[i]);  // timed: the copy's end
        if (e == cudaSuccess) e = cudaEventCreate(&s->begin[i]);
        if (e != cudaSuccess) {
            cuzk::stream_free(s);
            return fail(err, errlen, cuzk::cuda_code(e), "stream buffers of %zu points: %s", chunk, cudaGetErrorString(e));
        }
    }
    *handle = s;
    return 0;
}

int cuzk::stream_put(void* handle, int slot, const void* points, size_t n, char* err, size_t errlen) {
    streamer* s = static_cast<streamer*>(handle);
    if (!s || !points || slot < 0 || slot > 1 || n > s->chunk)
        return fail(err, errlen, 1, "NULL streamer or points, slot %d, or %zu points for chunks of %zu", slot, n,
                    s ? s->chunk : 0);
    CKR(cudaSetDevice(s->dev));
    CKR(cudaEventSynchronize(s->ready[slot]));  // the slot's previous copy
    s->n[slot] = n;
    const size_t bytes = n * s->point_bytes;
    if (bytes == 0) return 0;
    // Direct when the whole range is page-locked (its first and last
    // bytes; a range that runs past one registration is refused by the
    // copy and goes through the staging buffers instead).
    const char* last = static_cast<const char*>(points) + bytes - 1;
    if (cuzk::page_locked(points) && cuzk::page_locked(last)) {
        cudaStream_t cs = nullptr;
        if (int rc = cuzk::copy_stream(s->dev, &cs, err, errlen)) return rc;
        CKR(cudaEventRecord(s->begin[slot], cs));
        cudaError_t e = cudaMemcpyAsync(s->pts[slot], points, bytes, cudaMemcpyHostToDevice, cs);
        if (e == cudaSuccess) {
            CKR(cudaEventRecord(s->ready[slot], cs));
            s->timed[slot] = true;
            s->timed_bytes[slot] = bytes;
            return 0;
        }
        cudaGetLastError();
        if (e != cudaErrorInvalidValue) return fail(err, errlen, cuzk::cuda_code(e), "copying %zu points: %s", n, cudaGetErrorString(e));
    }
    cuzk::stager* st = cuzk::stager::get(s->dev, err, errlen);
    if (!st) return 2;
    auto t0 = std::chrono::steady_clock::now();
    int rc = st->h2d(s->pts[slot], points, bytes, err, errlen);
    if (!rc) {
        s->copied_bytes += bytes;
        s->copy_ns += (uint64_t)std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
    }
    return rc;
}

namespace {

template <class F>
__global__ void from_file_kernel(affine_t<F>* pts, size_t n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) affine_from_raw(pts + i);
}

}  // namespace

int cuzk::stream_put_file(void* handle, int slot, const void* encoded, size_t n, char* err, size_t errlen) {
    if (int rc = cuzk::stream_put(handle, slot, encoded, n, err, errlen)) return rc;
    streamer* s = static_cast<streamer*>(handle);
    if (n == 0) return 0;
    // The conversion on the copy stream, after the copy (a direct one is
    // still running there; a staged one is done); the slot's MSM waits
    // for ready[slot], recorded after it.
    cudaStream_t cs = nullptr;
    if (int rc = cuzk::copy_stream(s->dev, &cs, err, errlen)) return rc;
    const unsigned threads = 256;
    const unsigned blocks = (unsigned)((n + threads - 1) / threads);  // n <= chunk <= 2^31
    if (s->group == 1)
        from_file_kernel<fp_t><<<blocks, threads, 0, cs>>>(static_cast<g1_affine*>(s->pts[slot]), n);
    else
        from_file_kernel<fp2_t><<<blocks, threads, 0, cs>>>(static_cast<g2_affine*>(s->pts[slot]), n);
    CKR(cudaGetLastError());
    CKR(cudaEventRecord(s->ready[slot], cs));
    return 0;
}

int cuzk::stream_wait(void* handle, int slot, char* err, size_t errlen) {
    streamer* s = static_cast<streamer*>(handle);
    if (!s || slot < 0 || slot > 1) return fail(err, errlen, 1, "NULL streamer or slot %d", slot);
    CKR(cudaSetDevice(s->dev));
    CKR(cudaEventSynchronize(s->ready[slot]));
    return 0;
}

void cuzk::stream_copied(streamer* s, int slot) {
    if (!s->timed[slot]) return;
    s->timed[slot] = false;
    float ms = 0;
    if (cudaEventElapsedTime(&ms, s->begin[slot], s->ready[slot]) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    s->copied_bytes += s->timed_bytes[slot];
    s->copy_ns += (uint64_t)((double)ms * 1e6);
}

int cuzk::stream_take_stats(void* handle, uint64_t* bytes, uint64_t* copy_ns, char* err, size_t errlen) {
    streamer* s = static_cast<streamer*>(handle);
    if (!s || !bytes || !copy_ns) return fail(err, errlen, 1, "NULL argument");
    *bytes = s->copied_bytes.exchange(0);
    *copy_ns = s->copy_ns.exchange(0);
    return 0;
}

int cuzk::stream_msm(void* handle, int slot, void* scalars, size_t offset, size_t n, size_t set_n, void* result,
                     char* err, size_t errlen) {
    streamer* s = static_cast<streamer*>(handle);
    if (!s) return fail(err, errlen, 1, "NULL streamer");
    return s->group == 1 ? cuzk::stream_msm_g1(s, slot, scalars, offset, n, set_n, result, err, errlen)
                         : cuzk::stream_msm_g2(s, slot, scalars, offset, n, set_n, result, err, errlen);
}
