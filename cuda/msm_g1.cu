// The G1 MSM entry points of cuzk_cuda.h (the pipeline is in msm.cuh; G1
// and G2 are separate files so that they compile in parallel).
#include "msm.cuh"

extern "C" int cuzk_cuda_g1_upload(int dev, const void* points, size_t n, void** handle, char* err, size_t errlen) {
    return upload<fp_t>(dev, points, n, handle, err, errlen);
}
extern "C" void cuzk_cuda_g1_free(void* handle) { release<fp_t>(handle); }
extern "C" int cuzk_cuda_msm_g1(void* handle, const void* scalars, size_t n, void* result, char* err, size_t errlen) {
    return msm<fp_t>(handle, scalars, n, result, err, errlen);
}
extern "C" int cuzk_cuda_bench_msm_g1(void* handle, size_t n, int reps, double* ms, char* err, size_t errlen) {
    return bench_msm<fp_t>(handle, n, reps, ms, err, errlen);
}
