// The G1 MSM functions behind cuzk_cuda.h (api_gen.cu wraps them; the
// pipeline is in msm.cuh; G1 and G2 are separate files so that they compile
// in parallel), and h fed into the H MSM.
#include <chrono>

#include "api.h"
#include "msm/entry.cuh"
#include "ntt/h.cuh"

int cuzk::g1_upload(int dev, const void* points, size_t n, void** handle, char* err, size_t errlen) {
    return upload<fp_t>(dev, points, n, handle, err, errlen);
}
void cuzk::g1_free(void* handle) { release<fp_t>(handle); }
int cuzk::g1_alloc(int dev, size_t n, void** handle, char* err, size_t errlen) {
    return alloc_set<fp_t>(dev, n, handle, err, errlen);
}
int cuzk::g1_put(void* handle, size_t offset, const void* points, size_t n, char* err, size_t errlen) {
    return put<fp_t>(handle, offset, points, n, err, errlen);
}
int cuzk::msm_g1(void* handle, const void* scalars, size_t n, void* result, char* err, size_t errlen) {
    return msm<fp_t>(handle, scalars, n, result, err, errlen);
}
int cuzk::msm_g1_resident(void* handle, void* scalars, void* result, char* err, size_t errlen) {
    return msm_resident<fp_t>(handle, scalars, result, err, errlen);
}
int cuzk::stream_msm_g1(cuzk::streamer* s, int slot, void* scalars, size_t offset, size_t n, size_t set_n, void* result,
                       char* err, size_t errlen) {
    // entry.cuh's template: inside namespace cuzk the plain name finds cuzk::stream_msm (api.h) first
    return ::stream_msm<fp_t>(s, slot, scalars, offset, n, set_n, result, err, errlen);
}
#ifdef CUZK_CUDA_BENCH
int cuzk::bench_msm_g1(void* handle, size_t n, int reps, double* ms, char* err, size_t errlen) {
    return bench_msm<fp_t>(handle, n, reps, ms, err, errlen);
}
void cuzk::bench_force_branch_convert(int on) { cuzk::force_branch_convert.store(on != 0); }
int cuzk::bench_refuse_pass_scratch(int passes) { return std::max(cuzk::refuse_pass_scratch.exchange(passes), 0); }
#endif

// h computed on the device and fed straight into the H MSM: a, b, c go up
// once, h never comes down.
namespace {
// check_h refuses a point set that is not on dev or too small for h of n
// coefficients (before anything is copied).
int check_h(const point_set<fp_t>* s, int dev, size_t n, char* err, size_t errlen) {
    if (s->dev != dev) return fail(err, errlen, 1, "point set on device %d, h on device %d", s->dev, dev);
    if (n < 2 || s->n < n - 1) return fail(err, errlen, 1, "%zu points for h of %zu coefficients", s->n, n - 1);
    return 0;
}

// h of x's a, b, c into the H MSM over s; ms[0] gets the milliseconds from
// t0 to h, ms[1] those of the MSM.
int h_msm(cuzk::abc_t* x, const void* consts, point_set<fp_t>* s, void* result, double* ms,
          std::chrono::steady_clock::time_point t0, char* err, size_t errlen) {
    int rc = check_h(s, x->dev, x->n, err, errlen);
    if (!rc) rc = cuzk::h_abc(x, consts, err, errlen);
    auto t1 = std::chrono::steady_clock::now();
    if (!rc) rc = msm_device<fp_t>(s, (const fr_t*)x->dv[0], x->n - 1, static_cast<msm_result<fp_t>*>(result), err, errlen);
    auto t2 = std::chrono::steady_clock::now();
    ms[0] = std::chrono::duration<double, std::milli>(t1 - t0).count();
    ms[1] = std::chrono::duration<double, std::milli>(t2 - t1).count();
    return rc;
}
}  // namespace

int cuzk::h_msm_g1(int dev, void* a, void* b, void* c, size_t n, const void* consts, void* handle,
                   void* result, double* ms, char* err, size_t errlen) {
    point_set<fp_t>* s = static_cast<point_set<fp_t>*>(handle);
    if (!a || !b || !c || !consts || !s || !result || !ms) return fail(err, errlen, 1, "NULL argument");
    if (int rc = check_h(s, dev, n, err, errlen)) return rc;
    CKR(cudaSetDevice(dev));
    auto t0 = std::chrono::steady_clock::now();
    void* hv[3] = {a, b, c};
    cuzk::abc_t* x = nullptr;
    int rc = cuzk::abc_upload(dev, hv, n, &x, err, errlen);
    if (!rc) rc = h_msm(x, consts, s, result, ms, t0, err, errlen);
    cuzk::abc_free(x);
    return rc;
}

int cuzk::h_msm_g1_abc(void* abc, const void* consts, void* handle, void* result, double* ms, char* err,
                       size_t errlen) {
    cuzk::abc_t* x = static_cast<cuzk::abc_t*>(abc);
    point_set<fp_t>* s = static_cast<point_set<fp_t>*>(handle);
    int rc = 0;
    if (!x || !consts || !s || !result || !ms)
        rc = fail(err, errlen, 1, "NULL argument");
    else if (cudaError_t e = cudaSetDevice(x->dev))
        rc = fail(err, errlen, cuzk::cuda_code(e), "cudaSetDevice(%d): %s", x->dev, cudaGetErrorString(e));
    else
        rc = h_msm(x, consts, s, result, ms, std::chrono::steady_clock::now(), err, errlen);
    cuzk::abc_free(x);  // consumed, also on error
    return rc;
}
