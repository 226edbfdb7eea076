// Device-resident scalar vectors and the density selection ("prep") on the
// device, the functions behind cuzk_cuda.h's scalar entry points
// (api_gen.cu wraps them): out = head (copied from the host) followed
// by the aux values whose bit is set in a density bitmap, in order. One thread per bitmap
// word: popcounts, an exclusive scan (CUB) for each word's offset, then
// each thread copies its word's selected values.
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include "api.h"
#include "cuzk_cuda.h"
#include "scalars/scalars.cuh"
#include "util/common.cuh"
#include "util/staging.cuh"

namespace {

using cuzk::blocks;
using cuzk::fail;
using cuzk::scalar_vec;
using cuzk::THREADS;

// counts[w] = the set bits of word w that fall below n_aux.
__global__ void k_popc(const uint64_t* words, size_t nwords, size_t n_aux, uint32_t* counts) {
    size_t w = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (w >= nwords) return;
    uint64_t bits = words[w];
    size_t valid = n_aux - w * 64;
    if (valid < 64) bits &= (1ull << valid) - 1;
    counts[w] = __popcll(bits);
}

__global__ void k_select(const fr_t* aux, size_t n_aux, const uint64_t* words, size_t nwords, const uint32_t* offs,
                         fr_t* out) {
    size_t w = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (w >= nwords) return;
    uint64_t bits = words[w];
    size_t valid = n_aux - w * 64;
    if (valid < 64) bits &= (1ull << valid) - 1;
    size_t at = offs[w];
    while (bits) {
        int b = __ffsll((long long)bits) - 1;
        out[at++] = aux[w * 64 + b];
        bits &= bits - 1;
    }
}

struct dbuf {
    void* p = nullptr;
    ~dbuf() { cuzk::dev_free(p); }
};

int new_vec(int dev, size_t n, scalar_vec** out, char* err, size_t errlen) {
    scalar_vec* v = new scalar_vec{dev, n, nullptr};
    cudaError_t e = cuzk::dev_malloc(&v->p, (n ? n : 1) * sizeof(fr_t));
    if (e != cudaSuccess) {
        delete v;
        return fail(err, errlen, cuzk::cuda_code(e), "allocating %zu scalars: %s", n, cudaGetErrorString(e));
    }
    *out = v;
    return 0;
}

}  // namespace

int cuzk::scalars_upload(int dev, const void* host, size_t n, void** handle, char* err, size_t errlen) {
    if ((!host && n) || !handle) return fail(err, errlen, 1, "NULL scalars or handle");
    CKR(cudaSetDevice(dev));
    scalar_vec* v = nullptr;
    if (int rc = new_vec(dev, n, &v, err, errlen)) return rc;
    if (int rc = cuzk::upload_bytes(dev, v->p, host, n * sizeof(fr_t), err, errlen)) {
        cuzk::dev_free(v->p);
        delete v;
        return rc;
    }
    *handle = v;
    return 0;
}

int cuzk::scalars_select(void* aux_handle, const void* head, size_t n_head, const uint64_t* words,
                         void** handle, size_t* n_out, char* err, size_t errlen) {
    scalar_vec* aux = static_cast<scalar_vec*>(aux_handle);
    if (!aux || (!head && n_head) || !words || !handle || !n_out) return fail(err, errlen, 1, "NULL argument");
    CKR(cudaSetDevice(aux->dev));
    size_t nwords = (aux->n + 63) / 64;
    dbuf dwords, counts, offs, tmp;
    uint32_t total = 0;
    if (nwords) {
        CKR(cuzk::dev_malloc(&dwords.p, nwords * 8));
        CKR(cudaMemcpy(dwords.p, words, nwords * 8, cudaMemcpyHostToDevice));
        CKR(cuzk::dev_malloc(&counts.p, (nwords + 1) * 4));
        CKR(cuzk::dev_malloc(&offs.p, (nwords + 1) * 4));
        k_popc<<<blocks(nwords), THREADS>>>((const uint64_t*)dwords.p, nwords, aux->n, (uint32_t*)counts.p);
        CKR(cudaGetLastError());
        CKR(cudaMemset((uint32_t*)counts.p + nwords, 0, 4));
        size_t tb = 0;
        CKR(cub::DeviceScan::ExclusiveSum(nullptr, tb, (uint32_t*)counts.p, (uint32_t*)offs.p, nwords + 1));
        CKR(cuzk::dev_malloc(&tmp.p, tb + 16));
        CKR(cub::DeviceScan::ExclusiveSum(tmp.p, tb, (uint32_t*)counts.p, (uint32_t*)offs.p, nwords + 1));
        CKR(cudaMemcpy(&total, (uint32_t*)offs.p + nwords, 4, cudaMemcpyDeviceToHost));
    }
    scalar_vec* v = nullptr;
    if (int rc = new_vec(aux->dev, n_head + total, &v, err, errlen)) return rc;
    cudaError_t e = cudaSuccess;
    if (n_head) e = cudaMemcpy(v->p, head, n_head * sizeof(fr_t), cudaMemcpyHostToDevice);
    if (e == cudaSuccess && nwords) {
        k_select<<<blocks(nwords), THREADS>>>(aux->p, aux->n, (const uint64_t*)dwords.p, nwords, (const uint32_t*)offs.p,
                                               v->p + n_head);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        cuzk::dev_free(v->p);
        delete v;
        return fail(err, errlen, cuzk::cuda_code(e), "selecting scalars: %s", cudaGetErrorString(e));
    }
    *handle = v;
    *n_out = v->n;
    return 0;
}

int cuzk::scalars_download(void* handle, void* host, char* err, size_t errlen) {
    scalar_vec* v = static_cast<scalar_vec*>(handle);
    if (!v || (!host && v->n)) return fail(err, errlen, 1, "NULL handle or host buffer");
    CKR(cudaSetDevice(v->dev));
    return cuzk::download_bytes(v->dev, host, v->p, v->n * sizeof(fr_t), err, errlen);
}

void cuzk::scalars_free(void* handle) {
    scalar_vec* v = static_cast<scalar_vec*>(handle);
    if (!v) return;
    cudaSetDevice(v->dev);
    cuzk::dev_free(v->p);
    delete v;
}
