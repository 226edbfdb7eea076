// cuzk_cuda.h's entry points for NTTs and h. Each exports its C++ function
// (api.h, ntt/ntt.cu); the abc handle's upload and free only marshal the
// handle for ntt/h.cuh's.
#include "api.h"
#include "cuzk_cuda.h"
#include "ntt/h.cuh"
#include "util/common.cuh"

using cuzk::fail;

extern "C" int cuzk_cuda_ntt(int dev, void* x, size_t n, int inverse, int coset, const void* consts, char* err,
                             size_t errlen) {
    return cuzk::ntt(dev, x, n, inverse, coset, consts, err, errlen);
}

extern "C" int cuzk_cuda_ntt_h(int dev, void* a, void* b, void* c, size_t n, const void* consts, char* err,
                               size_t errlen) {
    return cuzk::ntt_h(dev, a, b, c, n, consts, err, errlen);
}

extern "C" int cuzk_cuda_abc_upload(int dev, const void* a, const void* b, const void* c, size_t n, void** abc,
                                    char* err, size_t errlen) {
    if (!abc) return fail(err, errlen, 1, "the handle is NULL");
    void* hv[3] = {const_cast<void*>(a), const_cast<void*>(b), const_cast<void*>(c)};
    cuzk::abc_t* x = nullptr;
    int rc = cuzk::abc_upload(dev, hv, n, &x, err, errlen);
    if (!rc) *abc = x;
    return rc;
}

extern "C" int cuzk_cuda_abc_add(void* abc, const void* b, const void* c, char* err, size_t errlen) {
    return cuzk::abc_add(static_cast<cuzk::abc_t*>(abc), const_cast<void*>(b), const_cast<void*>(c), err, errlen);
}

extern "C" void cuzk_cuda_abc_free(void* abc) { cuzk::abc_free(static_cast<cuzk::abc_t*>(abc)); }

#ifdef CUZK_CUDA_BENCH  // the bench build's optional symbols (cuzk_cuda.h)
extern "C" int cuzk_cuda_bench_ntt(int dev, size_t n, int reps, const void* consts, double* ms, char* err,
                                   size_t errlen) {
    return cuzk::bench_ntt(dev, n, reps, consts, ms, err, errlen);
}
#endif

extern "C" int cuzk_cuda_h_abc_scalars(void* abc, const void* consts, void** scalars, char* err, size_t errlen) {
    return cuzk::h_abc_scalars(abc, consts, scalars, err, errlen);
}
