// cuzk_cuda.h's entry points for the abc handle, which marshal more than
// the handle: a, b, c into ntt/h.cuh's array, the handle as its abc_t. The
// other NTT and h entry points are generated into api_gen.cu.
#include "api.h"
#include "cuzk_cuda.h"
#include "ntt/h.cuh"
#include "util/common.cuh"

using cuzk::fail;

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
