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

// The library's abc_t behind the opaque cuzk_cuda_abc (never defined).
static cuzk::abc_t* abc_of(cuzk_cuda_abc* abc) { return static_cast<cuzk::abc_t*>(static_cast<void*>(abc)); }

extern "C" int cuzk_cuda_abc_upload(int dev, const void* a, const void* b, const void* c, size_t n,
                                    cuzk_cuda_abc** abc, char* err, size_t errlen) {
    if (!abc) return fail(err, errlen, 1, "the handle is NULL");
    void* hv[3] = {const_cast<void*>(a), const_cast<void*>(b), const_cast<void*>(c)};
    cuzk::abc_t* x = nullptr;
    int rc = cuzk::abc_upload(dev, hv, n, &x, err, errlen);
    if (!rc) *abc = static_cast<cuzk_cuda_abc*>(static_cast<void*>(x));
    return rc;
}

extern "C" int cuzk_cuda_abc_add(cuzk_cuda_abc* abc, const void* b, const void* c, char* err, size_t errlen) {
    return cuzk::abc_add(abc_of(abc), const_cast<void*>(b), const_cast<void*>(c), err, errlen);
}

extern "C" void cuzk_cuda_abc_free(cuzk_cuda_abc* abc) { cuzk::abc_free(abc_of(abc)); }

#ifdef CUZK_CUDA_BENCH  // the bench build's optional symbols (cuzk_cuda.h)
extern "C" int cuzk_cuda_bench_ntt(int dev, size_t n, int reps, const void* consts, double* ms, char* err,
                                   size_t errlen) {
    return cuzk::bench_ntt(dev, n, reps, consts, ms, err, errlen);
}
#endif

extern "C" int cuzk_cuda_h_abc_scalars(cuzk_cuda_abc* abc, const void* consts, cuzk_cuda_scalars** scalars, char* err,
                                       size_t errlen) {
    cuzk::handle_out<cuzk_cuda_scalars> s(scalars);
    return s.done(cuzk::h_abc_scalars(abc, consts, s, err, errlen));
}
