// The G2 MSM functions behind cuzk_cuda.h (api_gen.cu wraps them; the
// pipeline is in msm.cuh).
#include "api.h"
#include "msm/entry.cuh"

int cuzk::g2_upload(int dev, const void* points, size_t n, void** handle, char* err, size_t errlen) {
    return upload<fp2_t>(dev, points, n, handle, err, errlen);
}
void cuzk::g2_free(void* handle) { release<fp2_t>(handle); }
int cuzk::g2_alloc(int dev, size_t n, void** handle, char* err, size_t errlen) {
    return alloc_set<fp2_t>(dev, n, handle, err, errlen);
}
int cuzk::g2_put(void* handle, size_t offset, const void* points, size_t n, char* err, size_t errlen) {
    return put<fp2_t>(handle, offset, points, n, err, errlen);
}
int cuzk::msm_g2(void* handle, const void* scalars, size_t n, void* result, char* err, size_t errlen) {
    return msm<fp2_t>(handle, scalars, n, result, err, errlen);
}
int cuzk::msm_g2_resident(void* handle, void* scalars, void* result, char* err, size_t errlen) {
    return msm_resident<fp2_t>(handle, scalars, result, err, errlen);
}
#ifdef CUZK_CUDA_BENCH
int cuzk::bench_msm_g2(void* handle, size_t n, int reps, double* ms, char* err, size_t errlen) {
    return bench_msm<fp2_t>(handle, n, reps, ms, err, errlen);
}
#endif
int cuzk::stream_msm_g2(cuzk::streamer* s, int slot, void* scalars, size_t offset, size_t n, size_t set_n, void* result,
                       char* err, size_t errlen) {
    // entry.cuh's template: inside namespace cuzk the plain name finds cuzk::stream_msm (api.h) first
    return ::stream_msm<fp2_t>(s, slot, scalars, offset, n, set_n, result, err, errlen);
}
