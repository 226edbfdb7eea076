// The MSM functions of one group behind cuzk_cuda.h, instantiated by
// msm_g1.cu and msm_g2.cu: a resident point set's upload and release, and
// msm_device (msm.cuh) over host scalars, over a device scalar vector, over
// a streamer's slot, and timed for the bench.
#pragma once
#include <string.h>

#include "cuzk_cuda.h"
#include "msm/msm.cuh"
#include "scalars/scalars.cuh"
#include "util/common.cuh"
#include "util/staging.cuh"
#include "util/stream.cuh"

namespace {

template <class F>
void release(void* handle) {
    point_set<F>* s = static_cast<point_set<F>*>(handle);
    if (!s) return;
    cudaSetDevice(s->dev);
    cuzk::dev_free(s->pts);
    delete s;
}

// alloc_set makes a set of n points, its contents undefined until put.
template <class F>
int alloc_set(int dev, size_t n, void** handle, char* err, size_t errlen) {
    if (!handle || n == 0) return fail(err, errlen, 1, "NULL handle, or no points");
    if (n > (SIZE_MAX >> 1) / sizeof(affine_t<F>)) return fail(err, errlen, 1, "%zu points is too many", n);
    CKR(cudaSetDevice(dev));
    point_set<F>* s = new point_set<F>{dev, n, nullptr};
    cudaError_t e = cuzk::dev_malloc(&s->pts, n * sizeof(affine_t<F>));
    if (e != cudaSuccess) {
        delete s;
        return fail(err, errlen, cuzk::cuda_code(e), "a set of %zu points: %s%s", n, cudaGetErrorString(e),
                    cuzk::cap_note_for(e));
    }
    *handle = s;
    return 0;
}

// put copies n host points into [offset, offset + n) of a set: through
// the stager (or directly when page-locked), on a stream of its own. A
// plain cudaMemcpy from pageable memory runs at ~5 GB/s and, on the legacy
// default stream, waits for the kernels queued there (a parameter file's
// next section would wait for the previous one's subgroup check).
template <class F>
int put(void* handle, size_t offset, const void* points, size_t n, char* err, size_t errlen) {
    point_set<F>* s = static_cast<point_set<F>*>(handle);
    if (!s || (!points && n)) return fail(err, errlen, 1, "NULL handle or points");
    if (offset > s->n || n > s->n - offset)
        return fail(err, errlen, 1, "points [%zu, %zu + %zu) in a set of %zu", offset, offset, n, s->n);
    CKR(cudaSetDevice(s->dev));
    return cuzk::upload_bytes(s->dev, s->pts + offset, points, n * sizeof(affine_t<F>), err, errlen);
}

template <class F>
int upload(int dev, const void* points, size_t n, void** handle, char* err, size_t errlen) {
    if (!points || !handle || n == 0) return fail(err, errlen, 1, "NULL points or handle, or no points");
    if (int rc = alloc_set<F>(dev, n, handle, err, errlen)) return rc;
    if (int rc = put<F>(*handle, 0, points, n, err, errlen)) {
        release<F>(*handle);
        *handle = nullptr;
        return rc;
    }
    return 0;
}

template <class F>
int msm(void* handle, const void* scalars, size_t n, void* result, char* err, size_t errlen) {
    point_set<F>* s = static_cast<point_set<F>*>(handle);
    if (!s || !scalars || !result) return fail(err, errlen, 1, "NULL handle, scalars or result");
    if (n > s->n) return fail(err, errlen, 1, "%zu scalars for %zu points", n, s->n);
    CKR(cudaSetDevice(s->dev));
    msm_result<F>* out = static_cast<msm_result<F>*>(result);
    if (n == 0) {
        memset(out, 0, sizeof *out);
        return 0;
    }
    dmem ds;  // written by the copy stream: not from the pool, whose memory is ordered on stream 0
    CKR(cuzk::dev_malloc(&ds.p, n * sizeof(fr_t)));
    if (int rc = cuzk::upload_bytes(s->dev, ds.p, scalars, n * sizeof(fr_t), err, errlen)) return rc;
    return msm_device<F>(s, ds.as<fr_t>(), n, out, err, errlen);
}

// msm over device-resident scalars (a cuzk_cuda_scalars handle): all of
// them, against the set's first points.
template <class F>
int msm_resident(void* handle, void* scalars, void* result, char* err, size_t errlen) {
    point_set<F>* s = static_cast<point_set<F>*>(handle);
    cuzk::scalar_vec* v = static_cast<cuzk::scalar_vec*>(scalars);
    if (!s || !v || !result) return fail(err, errlen, 1, "NULL handle, scalars or result");
    if (v->dev != s->dev) return fail(err, errlen, 1, "points on device %d, scalars on device %d", s->dev, v->dev);
    if (v->n > s->n) return fail(err, errlen, 1, "%zu scalars for %zu points", v->n, s->n);
    CKR(cudaSetDevice(s->dev));
    msm_result<F>* out = static_cast<msm_result<F>*>(result);
    if (v->n == 0) {
        memset(out, 0, sizeof *out);
        return 0;
    }
    return msm_device<F>(s, v->p, v->n, out, err, errlen);
}

// The MSM of a streamer's slot (util/stream.cuh) against device scalars.
template <class F>
int stream_msm(cuzk::streamer* s, int slot, void* scalars, size_t offset, size_t n, void* result, char* err, size_t errlen) {
    cuzk::scalar_vec* v = static_cast<cuzk::scalar_vec*>(scalars);
    if (!v || !result || slot < 0 || slot > 1) return fail(err, errlen, 1, "NULL argument or slot %d", slot);
    if (v->dev != s->dev) return fail(err, errlen, 1, "points on device %d, scalars on device %d", s->dev, v->dev);
    if (n > s->n[slot] || offset > v->n || n > v->n - offset)
        return fail(err, errlen, 1, "%zu scalars from %zu of %zu against %zu points", n, offset, v->n, s->n[slot]);
    CKR(cudaSetDevice(s->dev));
    msm_result<F>* out = static_cast<msm_result<F>*>(result);
    if (n == 0) {
        memset(out, 0, sizeof *out);
        return 0;
    }
    CKR(cudaStreamWaitEvent(0, s->ready[slot], 0));
    point_set<F> view{s->dev, n, static_cast<affine_t<F>*>(s->pts[slot])};
    int rc = msm_device<F>(&view, v->p + offset, n, out, err, errlen);
    if (!rc) cuzk::stream_copied(s, slot);  // the MSM waited for the slot's copy
    if (rc) {
        // nothing of this MSM, nor a put, still reads the buffers or the
        // host's pages when the caller sees the error
        cudaDeviceSynchronize();
        cudaGetLastError();
    }
    return rc;
}

template <class F>
int bench_msm(void* handle, size_t n, int reps, double* ms, char* err, size_t errlen) {
    point_set<F>* s = static_cast<point_set<F>*>(handle);
    if (!s || !ms || reps < 1 || n > s->n) return fail(err, errlen, 1, "bad arguments");
    CKR(cudaSetDevice(s->dev));
    dmem ds;
    CKR(ds.alloc(n * sizeof(fr_t)));
    msm_result<F>* out = new msm_result<F>;
    k_fill_random<<<blocks(n), THREADS>>>(ds.as<fr_t>(), n, 777u ^ 0x85ebca6bu);
    CKR(cudaGetLastError());
    float t[32];
    if (reps > 32) reps = 32;
    cudaEvent_t e0, e1;
    CKR(cudaEventCreate(&e0));
    CKR(cudaEventCreate(&e1));
    int rc = msm_device<F>(s, ds.as<fr_t>(), n, out, err, errlen);  // warm-up
    for (int r = 0; r < reps && !rc; r++) {
        cudaEventRecord(e0);
        rc = msm_device<F>(s, ds.as<fr_t>(), n, out, err, errlen);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&t[r], e0, e1);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    delete out;
    if (rc) return rc;
    for (int i = 1; i < reps; i++)
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            float x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    *ms = t[reps / 2];
    return 0;
}

}  // namespace
