// Code generated from cuda/cuzk_cuda.h by core/backend/cuda/abigen_test.go (make generate); DO NOT EDIT.
//
// cuzk_cuda.h's entry points that only marshal handles: each exports its
// cuzk:: function (api_gen.h), a handle out-parameter written only on
// success (handle_out, api.h). The bench entry points are in a bench build
// only (CUZK_CUDA_BENCH).
#include "api.h"
#include "cuzk_cuda.h"

extern "C" int cuzk_cuda_device_count(int* count, char* err, size_t errlen) {
    return cuzk::device_count(count, err, errlen);
}

extern "C" int cuzk_cuda_device_info(int dev, char* name, size_t namelen, size_t* vram_total, size_t* vram_free, char* err, size_t errlen) {
    return cuzk::device_info(dev, name, namelen, vram_total, vram_free, err, errlen);
}

extern "C" int cuzk_cuda_ntt(int dev, void* x, size_t n, int inverse, int coset, const void* consts, char* err, size_t errlen) {
    return cuzk::ntt(dev, x, n, inverse, coset, consts, err, errlen);
}

extern "C" int cuzk_cuda_ntt_h(int dev, void* a, void* b, void* c, size_t n, const void* consts, char* err, size_t errlen) {
    return cuzk::ntt_h(dev, a, b, c, n, consts, err, errlen);
}

extern "C" int cuzk_cuda_h_msm_g1(int dev, void* a, void* b, void* c, size_t n, const void* consts, cuzk_cuda_g1_set* handle, void* result, double* ms, char* err, size_t errlen) {
    return cuzk::h_msm_g1(dev, a, b, c, n, consts, handle, result, ms, err, errlen);
}

extern "C" int cuzk_cuda_h_msm_g1_abc(cuzk_cuda_abc* abc, const void* consts, cuzk_cuda_g1_set* handle, void* result, double* ms, char* err, size_t errlen) {
    return cuzk::h_msm_g1_abc(abc, consts, handle, result, ms, err, errlen);
}

#ifdef CUZK_CUDA_BENCH
extern "C" void cuzk_cuda_bench_force_branch_convert(int on) {
    cuzk::bench_force_branch_convert(on);
}
#endif

#ifdef CUZK_CUDA_BENCH
extern "C" int cuzk_cuda_bench_refuse_pass_scratch(int passes) {
    return cuzk::bench_refuse_pass_scratch(passes);
}
#endif

#ifdef CUZK_CUDA_BENCH
extern "C" int cuzk_cuda_bench_ntt(int dev, size_t n, int k, const void* consts, double* ms, char* err, size_t errlen) {
    return cuzk::bench_ntt(dev, n, k, consts, ms, err, errlen);
}
#endif

extern "C" int cuzk_cuda_g1_upload(int dev, const void* points, size_t n, cuzk_cuda_g1_set** handle, char* err, size_t errlen) {
    cuzk::handle_out<cuzk_cuda_g1_set> handle_out(handle);
    return handle_out.done(cuzk::g1_upload(dev, points, n, handle_out, err, errlen));
}

extern "C" void cuzk_cuda_g1_free(cuzk_cuda_g1_set* handle) {
    cuzk::g1_free(handle);
}

extern "C" int cuzk_cuda_g1_alloc(int dev, size_t n, cuzk_cuda_g1_set** handle, char* err, size_t errlen) {
    cuzk::handle_out<cuzk_cuda_g1_set> handle_out(handle);
    return handle_out.done(cuzk::g1_alloc(dev, n, handle_out, err, errlen));
}

extern "C" int cuzk_cuda_g1_put(cuzk_cuda_g1_set* handle, size_t offset, const void* points, size_t n, char* err, size_t errlen) {
    return cuzk::g1_put(handle, offset, points, n, err, errlen);
}

extern "C" int cuzk_cuda_msm_g1(cuzk_cuda_g1_set* handle, const void* scalars, size_t n, void* result, char* err, size_t errlen) {
    return cuzk::msm_g1(handle, scalars, n, result, err, errlen);
}

#ifdef CUZK_CUDA_BENCH
extern "C" int cuzk_cuda_bench_msm_g1(cuzk_cuda_g1_set* handle, size_t n, int reps, double* ms, char* err, size_t errlen) {
    return cuzk::bench_msm_g1(handle, n, reps, ms, err, errlen);
}
#endif

extern "C" int cuzk_cuda_g2_upload(int dev, const void* points, size_t n, cuzk_cuda_g2_set** handle, char* err, size_t errlen) {
    cuzk::handle_out<cuzk_cuda_g2_set> handle_out(handle);
    return handle_out.done(cuzk::g2_upload(dev, points, n, handle_out, err, errlen));
}

extern "C" void cuzk_cuda_g2_free(cuzk_cuda_g2_set* handle) {
    cuzk::g2_free(handle);
}

extern "C" int cuzk_cuda_g2_alloc(int dev, size_t n, cuzk_cuda_g2_set** handle, char* err, size_t errlen) {
    cuzk::handle_out<cuzk_cuda_g2_set> handle_out(handle);
    return handle_out.done(cuzk::g2_alloc(dev, n, handle_out, err, errlen));
}

extern "C" int cuzk_cuda_g2_put(cuzk_cuda_g2_set* handle, size_t offset, const void* points, size_t n, char* err, size_t errlen) {
    return cuzk::g2_put(handle, offset, points, n, err, errlen);
}

extern "C" int cuzk_cuda_msm_g2(cuzk_cuda_g2_set* handle, const void* scalars, size_t n, void* result, char* err, size_t errlen) {
    return cuzk::msm_g2(handle, scalars, n, result, err, errlen);
}

#ifdef CUZK_CUDA_BENCH
extern "C" int cuzk_cuda_bench_msm_g2(cuzk_cuda_g2_set* handle, size_t n, int reps, double* ms, char* err, size_t errlen) {
    return cuzk::bench_msm_g2(handle, n, reps, ms, err, errlen);
}
#endif

extern "C" int cuzk_cuda_g1_check_subgroup(cuzk_cuda_g1_set* handle, size_t offset, size_t n, size_t* n_bad, size_t* first_bad, char* err, size_t errlen) {
    return cuzk::g1_check_subgroup(handle, offset, n, n_bad, first_bad, err, errlen);
}

extern "C" int cuzk_cuda_g2_check_subgroup(cuzk_cuda_g2_set* handle, size_t offset, size_t n, size_t* n_bad, size_t* first_bad, char* err, size_t errlen) {
    return cuzk::g2_check_subgroup(handle, offset, n, n_bad, first_bad, err, errlen);
}

extern "C" int cuzk_cuda_scalars_upload(int dev, const void* host, size_t n, cuzk_cuda_scalars** handle, char* err, size_t errlen) {
    cuzk::handle_out<cuzk_cuda_scalars> handle_out(handle);
    return handle_out.done(cuzk::scalars_upload(dev, host, n, handle_out, err, errlen));
}

extern "C" int cuzk_cuda_scalars_select(cuzk_cuda_scalars* aux, const void* head, size_t n_head, const uint64_t* words, cuzk_cuda_scalars** handle, size_t* n_out, char* err, size_t errlen) {
    cuzk::handle_out<cuzk_cuda_scalars> handle_out(handle);
    return handle_out.done(cuzk::scalars_select(aux, head, n_head, words, handle_out, n_out, err, errlen));
}

extern "C" int cuzk_cuda_scalars_download(cuzk_cuda_scalars* handle, void* host, char* err, size_t errlen) {
    return cuzk::scalars_download(handle, host, err, errlen);
}

extern "C" void cuzk_cuda_scalars_free(cuzk_cuda_scalars* handle) {
    cuzk::scalars_free(handle);
}

extern "C" int cuzk_cuda_set_options(int dev, const cuzk_cuda_options* opts, char* err, size_t errlen) {
    return cuzk::set_options(dev, opts, err, errlen);
}

extern "C" int cuzk_cuda_memory(int dev, uint64_t* held, uint64_t* peak, uint64_t* cap, uint64_t* pool, int reset_peak, char* err, size_t errlen) {
    return cuzk::memory(dev, held, peak, cap, pool, reset_peak, err, errlen);
}

extern "C" int cuzk_cuda_stream_new(int dev, int group, size_t chunk, cuzk_cuda_stream** stream, char* err, size_t errlen) {
    cuzk::handle_out<cuzk_cuda_stream> stream_out(stream);
    return stream_out.done(cuzk::stream_new(dev, group, chunk, stream_out, err, errlen));
}

extern "C" int cuzk_cuda_stream_put(cuzk_cuda_stream* stream, int slot, const void* points, size_t n, char* err, size_t errlen) {
    return cuzk::stream_put(stream, slot, points, n, err, errlen);
}

extern "C" int cuzk_cuda_stream_msm(cuzk_cuda_stream* stream, int slot, cuzk_cuda_scalars* scalars, size_t offset, size_t n, size_t set_n, void* result, char* err, size_t errlen) {
    return cuzk::stream_msm(stream, slot, scalars, offset, n, set_n, result, err, errlen);
}

extern "C" void cuzk_cuda_stream_free(cuzk_cuda_stream* stream) {
    cuzk::stream_free(stream);
}

extern "C" int cuzk_cuda_stream_put_file(cuzk_cuda_stream* stream, int slot, const void* encoded, size_t n, char* err, size_t errlen) {
    return cuzk::stream_put_file(stream, slot, encoded, n, err, errlen);
}

extern "C" int cuzk_cuda_stream_wait(cuzk_cuda_stream* stream, int slot, char* err, size_t errlen) {
    return cuzk::stream_wait(stream, slot, err, errlen);
}

extern "C" int cuzk_cuda_stream_take_stats(cuzk_cuda_stream* stream, uint64_t* bytes, uint64_t* copy_ns, char* err, size_t errlen) {
    return cuzk::stream_take_stats(stream, bytes, copy_ns, err, errlen);
}

extern "C" int cuzk_cuda_h_abc_scalars(cuzk_cuda_abc* abc, const void* consts, cuzk_cuda_scalars** scalars, char* err, size_t errlen) {
    cuzk::handle_out<cuzk_cuda_scalars> scalars_out(scalars);
    return scalars_out.done(cuzk::h_abc_scalars(abc, consts, scalars_out, err, errlen));
}

extern "C" int cuzk_cuda_h_abc_lean_scalars(cuzk_cuda_abc* abc, const void* b, const void* c, const void* consts, cuzk_cuda_scalars** scalars, char* err, size_t errlen) {
    cuzk::handle_out<cuzk_cuda_scalars> scalars_out(scalars);
    return scalars_out.done(cuzk::h_abc_lean_scalars(abc, b, c, consts, scalars_out, err, errlen));
}

extern "C" int cuzk_cuda_host_register(void* p, size_t bytes, char* err, size_t errlen) {
    return cuzk::host_register(p, bytes, err, errlen);
}

extern "C" int cuzk_cuda_host_unregister(void* p, char* err, size_t errlen) {
    return cuzk::host_unregister(p, err, errlen);
}

extern "C" int cuzk_cuda_host_register_read_only(void* p, size_t bytes, char* err, size_t errlen) {
    return cuzk::host_register_read_only(p, bytes, err, errlen);
}

extern "C" int cuzk_cuda_msm_g1_resident(cuzk_cuda_g1_set* points, cuzk_cuda_scalars* scalars, void* result, char* err, size_t errlen) {
    return cuzk::msm_g1_resident(points, scalars, result, err, errlen);
}

extern "C" int cuzk_cuda_msm_g2_resident(cuzk_cuda_g2_set* points, cuzk_cuda_scalars* scalars, void* result, char* err, size_t errlen) {
    return cuzk::msm_g2_resident(points, scalars, result, err, errlen);
}
