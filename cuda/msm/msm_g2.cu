// The G2 MSM entry points of cuzk_cuda.h (the pipeline is in msm.cuh).
#include "msm/msm.cuh"

extern "C" int cuzk_cuda_g2_upload(int dev, const void* points, size_t n, void** handle, char* err, size_t errlen) {
    return upload<fp2_t>(dev, points, n, handle, err, errlen);
}
extern "C" void cuzk_cuda_g2_free(void* handle) { release<fp2_t>(handle); }
extern "C" int cuzk_cuda_msm_g2(void* handle, const void* scalars, size_t n, void* result, char* err, size_t errlen) {
    return msm<fp2_t>(handle, scalars, n, result, err, errlen);
}
extern "C" int cuzk_cuda_msm_g2_resident(void* handle, void* scalars, void* result, char* err, size_t errlen) {
    return msm_resident<fp2_t>(handle, scalars, result, err, errlen);
}
extern "C" int cuzk_cuda_bench_msm_g2(void* handle, size_t n, int reps, double* ms, char* err, size_t errlen) {
    return bench_msm<fp2_t>(handle, n, reps, ms, err, errlen);
}
int cuzk::stream_msm_g2(cuzk::streamer* s, int slot, void* scalars, size_t offset, size_t n, void* result, char* err,
                       size_t errlen) {
    return stream_msm<fp2_t>(s, slot, scalars, offset, n, result, err, errlen);
}
