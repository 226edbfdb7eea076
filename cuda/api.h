// The C++ functions behind cuzk_cuda.h: cuzk::X is the entry point
// cuzk_cuda_X, with the same arguments and results (cuzk_cuda.h documents
// them). The api_*.cu files export them as the C ABI and hold nothing else
// but the marshalling of handles (cuzk_cuda.h's opaque types to and from
// the void* the concept files cast to their own types); the concept files
// named below define them.
// Host-only: the api files include no kernels.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "cuzk_cuda.h"

namespace cuzk {

// handle_out marshals a handle out-parameter of cuzk_cuda.h's opaque type T
// for a concept file's function that writes a void*: the concept file sees
// NULL when the caller passed NULL (and refuses it), and the caller's handle
// is written only on success.
//   handle_out<cuzk_cuda_g1_set> h(handle);
//   return h.done(g1_upload(dev, points, n, h, err, errlen));
template <class T>
struct handle_out {
    T** dst;
    void* v = nullptr;
    explicit handle_out(T** d) : dst(d) {}
    operator void**() { return dst ? &v : nullptr; }
    int done(int rc) {
        if (rc == 0 && dst) *dst = static_cast<T*>(v);
        return rc;
    }
};

// util/device.cu
int device_count(int* count, char* err, size_t errlen);
int device_info(int dev, char* name, size_t namelen, size_t* total, size_t* freeb, char* err, size_t errlen);
int set_options(int dev, const cuzk_cuda_options* o, char* err, size_t errlen);
int memory(int dev, uint64_t* held, uint64_t* peak, uint64_t* cap, uint64_t* pool, int reset_peak, char* err,
           size_t errlen);
int host_register(void* p, size_t bytes, char* err, size_t errlen);
int host_unregister(void* p, char* err, size_t errlen);

// ntt/ntt.cu (abc_upload, abc_free: ntt/h.cuh)
int ntt(int dev, void* x, size_t n, int inverse, int coset, const void* consts, char* err, size_t errlen);
int ntt_h(int dev, void* a, void* b, void* c, size_t n, const void* consts, char* err, size_t errlen);
int bench_ntt(int dev, size_t n, int reps, const void* consts, double* ms, char* err, size_t errlen);
int h_abc_scalars(void* abc, const void* consts, void** scalars, char* err, size_t errlen);
// frees dev's twiddle tables that no call is using (set_options, under a cap)
void trim_twiddles(int dev);

// msm/msm_g1.cu
int g1_upload(int dev, const void* points, size_t n, void** handle, char* err, size_t errlen);
int g1_alloc(int dev, size_t n, void** handle, char* err, size_t errlen);
int g1_put(void* handle, size_t offset, const void* points, size_t n, char* err, size_t errlen);
void g1_free(void* handle);
int msm_g1(void* handle, const void* scalars, size_t n, void* result, char* err, size_t errlen);
int msm_g1_resident(void* handle, void* scalars, void* result, char* err, size_t errlen);
int bench_msm_g1(void* handle, size_t n, int reps, double* ms, char* err, size_t errlen);
void bench_force_branch_convert(int on);
int bench_refuse_pass_scratch(int passes);
int h_msm_g1(int dev, void* a, void* b, void* c, size_t n, const void* consts, void* handle, void* result, double* ms,
             char* err, size_t errlen);
int h_msm_g1_abc(void* abc, const void* consts, void* handle, void* result, double* ms, char* err, size_t errlen);

// msm/msm_g2.cu
int g2_upload(int dev, const void* points, size_t n, void** handle, char* err, size_t errlen);
int g2_alloc(int dev, size_t n, void** handle, char* err, size_t errlen);
int g2_put(void* handle, size_t offset, const void* points, size_t n, char* err, size_t errlen);
void g2_free(void* handle);
int msm_g2(void* handle, const void* scalars, size_t n, void* result, char* err, size_t errlen);
int msm_g2_resident(void* handle, void* scalars, void* result, char* err, size_t errlen);
int bench_msm_g2(void* handle, size_t n, int reps, double* ms, char* err, size_t errlen);

// subgroup/subgroup.cu
int g1_check_subgroup(void* handle, size_t offset, size_t n, size_t* n_bad, size_t* first_bad, char* err,
                      size_t errlen);
int g2_check_subgroup(void* handle, size_t offset, size_t n, size_t* n_bad, size_t* first_bad, char* err,
                      size_t errlen);

// scalars/scalars.cu
int scalars_upload(int dev, const void* host, size_t n, void** handle, char* err, size_t errlen);
int scalars_select(void* aux_handle, const void* head, size_t n_head, const uint64_t* words, void** handle,
                   size_t* n_out, char* err, size_t errlen);
int scalars_download(void* handle, void* host, char* err, size_t errlen);
void scalars_free(void* handle);

// util/stream.cu
int stream_new(int dev, int group, size_t chunk, void** handle, char* err, size_t errlen);
int stream_put(void* handle, int slot, const void* points, size_t n, char* err, size_t errlen);
int stream_msm(void* handle, int slot, void* scalars, size_t offset, size_t n, size_t set_n, void* result, char* err,
               size_t errlen);
void stream_free(void* handle);
int stream_take_stats(void* handle, uint64_t* bytes, uint64_t* copy_ns, char* err, size_t errlen);

}  // namespace cuzk
