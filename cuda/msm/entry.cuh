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

// Opens a streamed set's MSM of set_n points on s: its window size from
// set_n, its buckets (allocated, or those of an earlier set reused) cleared.
template <class F>
int stream_open(cuzk::streamer* s, size_t set_n, char* err, size_t errlen) {
    const int c = window_bits(set_n), nw = (255 + c - 1) / c;
    const size_t nb = (size_t)nw << (c - 1), bytes = nb * sizeof(jac_t<F>);
    s->acc_set = 0;
    if (s->acc_bytes < bytes) {
        cuzk::dev_free(s->acc);
        s->acc = nullptr;
        s->acc_bytes = 0;
        CKR(cuzk::dev_malloc(&s->acc, bytes));
        s->acc_bytes = bytes;
    }
    k_clear<<<blocks(nb), THREADS>>>(static_cast<jac_t<F>*>(s->acc), nb);
    CKR(cudaGetLastError());
    s->acc_set = set_n;
    s->acc_next = 0;
    s->acc_c = c;
    s->acc_nw = nw;
    return 0;
}

// The MSM of a streamer's slot (util/stream.cuh) against device scalars:
// alone (set_n 0), or as the chunk [offset, offset + n) of a set of set_n
// points streamed in order, whose sums the streamer keeps until the last.
template <class F>
int stream_msm(cuzk::streamer* s, int slot, void* scalars, size_t offset, size_t n, size_t set_n, void* result, char* err,
               size_t errlen) {
    cuzk::scalar_vec* v = static_cast<cuzk::scalar_vec*>(scalars);
    if (!v || !result || slot < 0 || slot > 1) return fail(err, errlen, 1, "NULL argument or slot %d", slot);
    if (v->dev != s->dev) return fail(err, errlen, 1, "points on device %d, scalars on device %d", s->dev, v->dev);
    if (n > s->n[slot] || offset > v->n || n > v->n - offset)
        return fail(err, errlen, 1, "%zu scalars from %zu of %zu against %zu points", n, offset, v->n, s->n[slot]);
    if (set_n > 0 && (offset > set_n || n > set_n - offset)) {
        s->acc_set = 0;  // the open set is abandoned: its next chunk is refused
        return fail(err, errlen, 1, "a chunk of %zu points from %zu of a set of %zu", n, offset, set_n);
    }
    if (set_n > 0 && offset > 0 && (s->acc_set != set_n || s->acc_next != offset)) {
        const size_t open = s->acc_set, next = s->acc_next;
        s->acc_set = 0;
        return fail(err, errlen, 1,
                    "a chunk from %zu of a set of %zu points, but the streamer's open set is %zu points, next from %zu "
                    "(a set's chunks go in order, from 0)",
                    offset, set_n, open, next);
    }
    CKR(cudaSetDevice(s->dev));
    msm_result<F>* out = static_cast<msm_result<F>*>(result);
    memset(out, 0, sizeof *out);
    if (set_n > 0 && offset == 0)
        if (int rc = stream_open<F>(s, set_n, err, errlen)) return rc;
    int rc = 0;
    const msm_acc<F> acc{static_cast<jac_t<F>*>(s->acc), s->acc_c, s->acc_nw};
    if (n > 0) {
        CKR(cudaStreamWaitEvent(0, s->ready[slot], 0));
        point_set<F> view{s->dev, n, static_cast<affine_t<F>*>(s->pts[slot])};
        rc = msm_device<F>(&view, v->p + offset, n, out, err, errlen, set_n > 0 ? &acc : nullptr);
        if (!rc) cuzk::stream_copied(s, slot);  // the MSM waited for the slot's copy
    }
    if (!rc && set_n > 0) {
        s->acc_next = offset + n;
        if (s->acc_next == set_n) {
            rc = msm_finish<F>(&acc, out, err, errlen);
            s->acc_set = 0;
        }
    }
    if (rc) {
        s->acc_set = 0;  // the set is abandoned: its next chunk is refused
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
