// cuzk_cuda.h's entry points for resident point sets and their MSMs, G1
// and G2, and for h fed into the H MSM. Each exports its C++ function
// (api.h; msm/msm_g1.cu, msm/msm_g2.cu).
#include "api.h"
#include "cuzk_cuda.h"

using cuzk::handle_out;

extern "C" int cuzk_cuda_h_msm_g1(int dev, void* a, void* b, void* c, size_t n, const void* consts,
                                  cuzk_cuda_g1_set* handle, void* result, double* ms, char* err, size_t errlen) {
    return cuzk::h_msm_g1(dev, a, b, c, n, consts, handle, result, ms, err, errlen);
}

extern "C" int cuzk_cuda_h_msm_g1_abc(cuzk_cuda_abc* abc, const void* consts, cuzk_cuda_g1_set* handle, void* result,
                                      double* ms, char* err, size_t errlen) {
    return cuzk::h_msm_g1_abc(abc, consts, handle, result, ms, err, errlen);
}

extern "C" int cuzk_cuda_g1_upload(int dev, const void* points, size_t n, cuzk_cuda_g1_set** handle, char* err, size_t errlen) {
    handle_out<cuzk_cuda_g1_set> h(handle);
    return h.done(cuzk::g1_upload(dev, points, n, h, err, errlen));
}
extern "C" void cuzk_cuda_g1_free(cuzk_cuda_g1_set* handle) { cuzk::g1_free(handle); }
extern "C" int cuzk_cuda_g1_alloc(int dev, size_t n, cuzk_cuda_g1_set** handle, char* err, size_t errlen) {
    handle_out<cuzk_cuda_g1_set> h(handle);
    return h.done(cuzk::g1_alloc(dev, n, h, err, errlen));
}
extern "C" int cuzk_cuda_g1_put(cuzk_cuda_g1_set* handle, size_t offset, const void* points, size_t n, char* err, size_t errlen) {
    return cuzk::g1_put(handle, offset, points, n, err, errlen);
}
extern "C" int cuzk_cuda_msm_g1(cuzk_cuda_g1_set* handle, const void* scalars, size_t n, void* result, char* err, size_t errlen) {
    return cuzk::msm_g1(handle, scalars, n, result, err, errlen);
}
extern "C" int cuzk_cuda_msm_g1_resident(cuzk_cuda_g1_set* handle, cuzk_cuda_scalars* scalars, void* result, char* err,
                                         size_t errlen) {
    return cuzk::msm_g1_resident(handle, scalars, result, err, errlen);
}
#ifdef CUZK_CUDA_BENCH
extern "C" void cuzk_cuda_bench_force_branch_convert(int on) { cuzk::bench_force_branch_convert(on); }
extern "C" int cuzk_cuda_bench_refuse_pass_scratch(int passes) { return cuzk::bench_refuse_pass_scratch(passes); }
extern "C" int cuzk_cuda_bench_msm_g1(cuzk_cuda_g1_set* handle, size_t n, int reps, double* ms, char* err, size_t errlen) {
    return cuzk::bench_msm_g1(handle, n, reps, ms, err, errlen);
}
#endif

extern "C" int cuzk_cuda_g2_upload(int dev, const void* points, size_t n, cuzk_cuda_g2_set** handle, char* err, size_t errlen) {
    handle_out<cuzk_cuda_g2_set> h(handle);
    return h.done(cuzk::g2_upload(dev, points, n, h, err, errlen));
}
extern "C" void cuzk_cuda_g2_free(cuzk_cuda_g2_set* handle) { cuzk::g2_free(handle); }
extern "C" int cuzk_cuda_g2_alloc(int dev, size_t n, cuzk_cuda_g2_set** handle, char* err, size_t errlen) {
    handle_out<cuzk_cuda_g2_set> h(handle);
    return h.done(cuzk::g2_alloc(dev, n, h, err, errlen));
}
extern "C" int cuzk_cuda_g2_put(cuzk_cuda_g2_set* handle, size_t offset, const void* points, size_t n, char* err, size_t errlen) {
    return cuzk::g2_put(handle, offset, points, n, err, errlen);
}
extern "C" int cuzk_cuda_msm_g2(cuzk_cuda_g2_set* handle, const void* scalars, size_t n, void* result, char* err, size_t errlen) {
    return cuzk::msm_g2(handle, scalars, n, result, err, errlen);
}
extern "C" int cuzk_cuda_msm_g2_resident(cuzk_cuda_g2_set* handle, cuzk_cuda_scalars* scalars, void* result, char* err,
                                         size_t errlen) {
    return cuzk::msm_g2_resident(handle, scalars, result, err, errlen);
}
#ifdef CUZK_CUDA_BENCH
extern "C" int cuzk_cuda_bench_msm_g2(cuzk_cuda_g2_set* handle, size_t n, int reps, double* ms, char* err, size_t errlen) {
    return cuzk::bench_msm_g2(handle, n, reps, ms, err, errlen);
}
#endif
