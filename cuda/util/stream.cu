// The group-independent part of streaming, behind cuzk_cuda.h's stream
// entry points (api_stream.cu wraps them): the streamer's buffers and the
// puts; the MSMs are in msm_g1.cu and msm_g2.cu.
#include "api.h"
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
        cuzk::dev_free(s->pts[i]);
    }
    delete s;
}

int cuzk::stream_new(int dev, int group, size_t chunk, void** handle, char* err, size_t errlen) {
    if (group != 1 && group != 2) return fail(err, errlen, 1, "group %d: want 1 (G1) or 2 (G2)", group);
    const size_t point_bytes = group == 1 ? 96 : 192;  // affine x, y in Fp or Fp2
    if (!handle || chunk == 0 || chunk > ((size_t)1 << 31) || chunk > SIZE_MAX / point_bytes)
        return fail(err, errlen, 1, "NULL handle, or chunk of %zu points (1..2^31)", chunk);
    CKR(cudaSetDevice(dev));
    streamer* s = new streamer{dev, group, chunk, point_bytes, {nullptr, nullptr}, {0, 0}, {nullptr, nullptr}};
    for (int i = 0; i < 2; i++) {
        cudaError_t e = cuzk::dev_malloc(&s->pts[i], chunk * point_bytes);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&s->ready[i], cudaEventDisableTiming);
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
        cudaError_t e = cudaMemcpyAsync(s->pts[slot], points, bytes, cudaMemcpyHostToDevice, cs);
        if (e == cudaSuccess) {
            CKR(cudaEventRecord(s->ready[slot], cs));
            return 0;
        }
        cudaGetLastError();
        if (e != cudaErrorInvalidValue) return fail(err, errlen, cuzk::cuda_code(e), "copying %zu points: %s", n, cudaGetErrorString(e));
    }
    cuzk::stager* st = cuzk::stager::get(s->dev, err, errlen);
    return st ? st->h2d(s->pts[slot], points, bytes, err, errlen) : 2;
}

int cuzk::stream_msm(void* handle, int slot, void* scalars, size_t offset, size_t n, void* result,
                     char* err, size_t errlen) {
    streamer* s = static_cast<streamer*>(handle);
    if (!s) return fail(err, errlen, 1, "NULL streamer");
    return s->group == 1 ? cuzk::stream_msm_g1(s, slot, scalars, offset, n, result, err, errlen)
                         : cuzk::stream_msm_g2(s, slot, scalars, offset, n, result, err, errlen);
}
