// Code generated from cuda/cuzk_cuda.h by core/backend/cuda/abigen_test.go (make generate); DO NOT EDIT.
//
// For each entry point of cuzk_cuda.h: its function pointer type, the
// header's own, and a caller (cgo cannot call a function pointer) that
// takes Go's void* handles and passes them as the header's opaque types;
// a handle out-parameter is written only on success.
#ifndef CUZK_CALLS_GEN_H
#define CUZK_CALLS_GEN_H
#include <stddef.h>
#include <stdint.h>
#include "cuzk_cuda.h"

typedef int (*cuzk_cuda_abi_version_fn)(void);
typedef int (*cuzk_cuda_device_count_fn)(int*, char*, size_t);
typedef int (*cuzk_cuda_device_info_fn)(int, char*, size_t, size_t*, size_t*, char*, size_t);
typedef int (*cuzk_cuda_ntt_fn)(int, void*, size_t, int, int, const void*, char*, size_t);
typedef int (*cuzk_cuda_ntt_h_fn)(int, void*, void*, void*, size_t, const void*, char*, size_t);
typedef int (*cuzk_cuda_h_msm_g1_fn)(int, void*, void*, void*, size_t, const void*, cuzk_cuda_g1_set*, void*, double*, char*, size_t);
typedef int (*cuzk_cuda_abc_upload_fn)(int, const void*, const void*, const void*, size_t, cuzk_cuda_abc**, char*, size_t);
typedef int (*cuzk_cuda_abc_add_fn)(cuzk_cuda_abc*, const void*, const void*, char*, size_t);
typedef int (*cuzk_cuda_h_msm_g1_abc_fn)(cuzk_cuda_abc*, const void*, cuzk_cuda_g1_set*, void*, double*, char*, size_t);
typedef void (*cuzk_cuda_abc_free_fn)(cuzk_cuda_abc*);
typedef void (*cuzk_cuda_bench_force_branch_convert_fn)(int);
typedef int (*cuzk_cuda_bench_refuse_pass_scratch_fn)(int);
typedef int (*cuzk_cuda_bench_ntt_fn)(int, size_t, int, const void*, double*, char*, size_t);
typedef int (*cuzk_cuda_g1_upload_fn)(int, const void*, size_t, cuzk_cuda_g1_set**, char*, size_t);
typedef void (*cuzk_cuda_g1_free_fn)(cuzk_cuda_g1_set*);
typedef int (*cuzk_cuda_g1_alloc_fn)(int, size_t, cuzk_cuda_g1_set**, char*, size_t);
typedef int (*cuzk_cuda_g1_put_fn)(cuzk_cuda_g1_set*, size_t, const void*, size_t, char*, size_t);
typedef int (*cuzk_cuda_msm_g1_fn)(cuzk_cuda_g1_set*, const void*, size_t, void*, char*, size_t);
typedef int (*cuzk_cuda_bench_msm_g1_fn)(cuzk_cuda_g1_set*, size_t, int, double*, char*, size_t);
typedef int (*cuzk_cuda_g2_upload_fn)(int, const void*, size_t, cuzk_cuda_g2_set**, char*, size_t);
typedef void (*cuzk_cuda_g2_free_fn)(cuzk_cuda_g2_set*);
typedef int (*cuzk_cuda_g2_alloc_fn)(int, size_t, cuzk_cuda_g2_set**, char*, size_t);
typedef int (*cuzk_cuda_g2_put_fn)(cuzk_cuda_g2_set*, size_t, const void*, size_t, char*, size_t);
typedef int (*cuzk_cuda_msm_g2_fn)(cuzk_cuda_g2_set*, const void*, size_t, void*, char*, size_t);
typedef int (*cuzk_cuda_bench_msm_g2_fn)(cuzk_cuda_g2_set*, size_t, int, double*, char*, size_t);
typedef int (*cuzk_cuda_g1_check_subgroup_fn)(cuzk_cuda_g1_set*, size_t, size_t, size_t*, size_t*, char*, size_t);
typedef int (*cuzk_cuda_g2_check_subgroup_fn)(cuzk_cuda_g2_set*, size_t, size_t, size_t*, size_t*, char*, size_t);
typedef int (*cuzk_cuda_scalars_upload_fn)(int, const void*, size_t, cuzk_cuda_scalars**, char*, size_t);
typedef int (*cuzk_cuda_scalars_select_fn)(cuzk_cuda_scalars*, const void*, size_t, const uint64_t*, cuzk_cuda_scalars**, size_t*, char*, size_t);
typedef int (*cuzk_cuda_scalars_download_fn)(cuzk_cuda_scalars*, void*, char*, size_t);
typedef void (*cuzk_cuda_scalars_free_fn)(cuzk_cuda_scalars*);
typedef int (*cuzk_cuda_set_options_fn)(int, const cuzk_cuda_options*, char*, size_t);
typedef int (*cuzk_cuda_memory_fn)(int, uint64_t*, uint64_t*, uint64_t*, uint64_t*, int, char*, size_t);
typedef int (*cuzk_cuda_stream_new_fn)(int, int, size_t, cuzk_cuda_stream**, char*, size_t);
typedef int (*cuzk_cuda_stream_put_fn)(cuzk_cuda_stream*, int, const void*, size_t, char*, size_t);
typedef int (*cuzk_cuda_stream_msm_fn)(cuzk_cuda_stream*, int, cuzk_cuda_scalars*, size_t, size_t, size_t, void*, char*, size_t);
typedef void (*cuzk_cuda_stream_free_fn)(cuzk_cuda_stream*);
typedef int (*cuzk_cuda_stream_put_file_fn)(cuzk_cuda_stream*, int, const void*, size_t, char*, size_t);
typedef int (*cuzk_cuda_stream_wait_fn)(cuzk_cuda_stream*, int, char*, size_t);
typedef int (*cuzk_cuda_stream_take_stats_fn)(cuzk_cuda_stream*, uint64_t*, uint64_t*, char*, size_t);
typedef int (*cuzk_cuda_h_abc_scalars_fn)(cuzk_cuda_abc*, const void*, cuzk_cuda_scalars**, char*, size_t);
typedef int (*cuzk_cuda_h_abc_lean_scalars_fn)(cuzk_cuda_abc*, const void*, const void*, const void*, cuzk_cuda_scalars**, char*, size_t);
typedef int (*cuzk_cuda_host_register_fn)(void*, size_t, char*, size_t);
typedef int (*cuzk_cuda_host_unregister_fn)(void*, char*, size_t);
typedef int (*cuzk_cuda_host_register_read_only_fn)(void*, size_t, char*, size_t);
typedef int (*cuzk_cuda_msm_g1_resident_fn)(cuzk_cuda_g1_set*, cuzk_cuda_scalars*, void*, char*, size_t);
typedef int (*cuzk_cuda_msm_g2_resident_fn)(cuzk_cuda_g2_set*, cuzk_cuda_scalars*, void*, char*, size_t);

static int call_abi_version(void* f) {
    return ((cuzk_cuda_abi_version_fn)f)();
}

static int call_device_count(void* f, int* count, char* err, size_t errlen) {
    return ((cuzk_cuda_device_count_fn)f)(count, err, errlen);
}

static int call_device_info(void* f, int dev, char* name, size_t namelen, size_t* vram_total, size_t* vram_free, char* err, size_t errlen) {
    return ((cuzk_cuda_device_info_fn)f)(dev, name, namelen, vram_total, vram_free, err, errlen);
}

static int call_ntt(void* f, int dev, void* x, size_t n, int inverse, int coset, const void* consts, char* err, size_t errlen) {
    return ((cuzk_cuda_ntt_fn)f)(dev, x, n, inverse, coset, consts, err, errlen);
}

static int call_ntt_h(void* f, int dev, void* a, void* b, void* c, size_t n, const void* consts, char* err, size_t errlen) {
    return ((cuzk_cuda_ntt_h_fn)f)(dev, a, b, c, n, consts, err, errlen);
}

static int call_h_msm_g1(void* f, int dev, void* a, void* b, void* c, size_t n, const void* consts, void* handle, void* result, double* ms, char* err, size_t errlen) {
    return ((cuzk_cuda_h_msm_g1_fn)f)(dev, a, b, c, n, consts, (cuzk_cuda_g1_set*)handle, result, ms, err, errlen);
}

static int call_abc_upload(void* f, int dev, const void* a, const void* b, const void* c, size_t n, void** abc, char* err, size_t errlen) {
    cuzk_cuda_abc* abc_out = NULL;
    int rc = ((cuzk_cuda_abc_upload_fn)f)(dev, a, b, c, n, &abc_out, err, errlen);
    if (rc == 0) *abc = abc_out;
    return rc;
}

static int call_abc_add(void* f, void* abc, const void* b, const void* c, char* err, size_t errlen) {
    return ((cuzk_cuda_abc_add_fn)f)((cuzk_cuda_abc*)abc, b, c, err, errlen);
}

static int call_h_msm_g1_abc(void* f, void* abc, const void* consts, void* handle, void* result, double* ms, char* err, size_t errlen) {
    return ((cuzk_cuda_h_msm_g1_abc_fn)f)((cuzk_cuda_abc*)abc, consts, (cuzk_cuda_g1_set*)handle, result, ms, err, errlen);
}

static void call_abc_free(void* f, void* abc) {
    ((cuzk_cuda_abc_free_fn)f)((cuzk_cuda_abc*)abc);
}

static void call_bench_force_branch_convert(void* f, int on) {
    ((cuzk_cuda_bench_force_branch_convert_fn)f)(on);
}

static int call_bench_refuse_pass_scratch(void* f, int passes) {
    return ((cuzk_cuda_bench_refuse_pass_scratch_fn)f)(passes);
}

static int call_bench_ntt(void* f, int dev, size_t n, int k, const void* consts, double* ms, char* err, size_t errlen) {
    return ((cuzk_cuda_bench_ntt_fn)f)(dev, n, k, consts, ms, err, errlen);
}

static int call_g1_upload(void* f, int dev, const void* points, size_t n, void** handle, char* err, size_t errlen) {
    cuzk_cuda_g1_set* handle_out = NULL;
    int rc = ((cuzk_cuda_g1_upload_fn)f)(dev, points, n, &handle_out, err, errlen);
    if (rc == 0) *handle = handle_out;
    return rc;
}

static void call_g1_free(void* f, void* handle) {
    ((cuzk_cuda_g1_free_fn)f)((cuzk_cuda_g1_set*)handle);
}

static int call_g1_alloc(void* f, int dev, size_t n, void** handle, char* err, size_t errlen) {
    cuzk_cuda_g1_set* handle_out = NULL;
    int rc = ((cuzk_cuda_g1_alloc_fn)f)(dev, n, &handle_out, err, errlen);
    if (rc == 0) *handle = handle_out;
    return rc;
}

static int call_g1_put(void* f, void* handle, size_t offset, const void* points, size_t n, char* err, size_t errlen) {
    return ((cuzk_cuda_g1_put_fn)f)((cuzk_cuda_g1_set*)handle, offset, points, n, err, errlen);
}

static int call_msm_g1(void* f, void* handle, const void* scalars, size_t n, void* result, char* err, size_t errlen) {
    return ((cuzk_cuda_msm_g1_fn)f)((cuzk_cuda_g1_set*)handle, scalars, n, result, err, errlen);
}

static int call_bench_msm_g1(void* f, void* handle, size_t n, int reps, double* ms, char* err, size_t errlen) {
    return ((cuzk_cuda_bench_msm_g1_fn)f)((cuzk_cuda_g1_set*)handle, n, reps, ms, err, errlen);
}

static int call_g2_upload(void* f, int dev, const void* points, size_t n, void** handle, char* err, size_t errlen) {
    cuzk_cuda_g2_set* handle_out = NULL;
    int rc = ((cuzk_cuda_g2_upload_fn)f)(dev, points, n, &handle_out, err, errlen);
    if (rc == 0) *handle = handle_out;
    return rc;
}

static void call_g2_free(void* f, void* handle) {
    ((cuzk_cuda_g2_free_fn)f)((cuzk_cuda_g2_set*)handle);
}

static int call_g2_alloc(void* f, int dev, size_t n, void** handle, char* err, size_t errlen) {
    cuzk_cuda_g2_set* handle_out = NULL;
    int rc = ((cuzk_cuda_g2_alloc_fn)f)(dev, n, &handle_out, err, errlen);
    if (rc == 0) *handle = handle_out;
    return rc;
}

static int call_g2_put(void* f, void* handle, size_t offset, const void* points, size_t n, char* err, size_t errlen) {
    return ((cuzk_cuda_g2_put_fn)f)((cuzk_cuda_g2_set*)handle, offset, points, n, err, errlen);
}

static int call_msm_g2(void* f, void* handle, const void* scalars, size_t n, void* result, char* err, size_t errlen) {
    return ((cuzk_cuda_msm_g2_fn)f)((cuzk_cuda_g2_set*)handle, scalars, n, result, err, errlen);
}

static int call_bench_msm_g2(void* f, void* handle, size_t n, int reps, double* ms, char* err, size_t errlen) {
    return ((cuzk_cuda_bench_msm_g2_fn)f)((cuzk_cuda_g2_set*)handle, n, reps, ms, err, errlen);
}

static int call_g1_check_subgroup(void* f, void* handle, size_t offset, size_t n, size_t* n_bad, size_t* first_bad, char* err, size_t errlen) {
    return ((cuzk_cuda_g1_check_subgroup_fn)f)((cuzk_cuda_g1_set*)handle, offset, n, n_bad, first_bad, err, errlen);
}

static int call_g2_check_subgroup(void* f, void* handle, size_t offset, size_t n, size_t* n_bad, size_t* first_bad, char* err, size_t errlen) {
    return ((cuzk_cuda_g2_check_subgroup_fn)f)((cuzk_cuda_g2_set*)handle, offset, n, n_bad, first_bad, err, errlen);
}

static int call_scalars_upload(void* f, int dev, const void* host, size_t n, void** handle, char* err, size_t errlen) {
    cuzk_cuda_scalars* handle_out = NULL;
    int rc = ((cuzk_cuda_scalars_upload_fn)f)(dev, host, n, &handle_out, err, errlen);
    if (rc == 0) *handle = handle_out;
    return rc;
}

static int call_scalars_select(void* f, void* aux, const void* head, size_t n_head, const uint64_t* words, void** handle, size_t* n_out, char* err, size_t errlen) {
    cuzk_cuda_scalars* handle_out = NULL;
    int rc = ((cuzk_cuda_scalars_select_fn)f)((cuzk_cuda_scalars*)aux, head, n_head, words, &handle_out, n_out, err, errlen);
    if (rc == 0) *handle = handle_out;
    return rc;
}

static int call_scalars_download(void* f, void* handle, void* host, char* err, size_t errlen) {
    return ((cuzk_cuda_scalars_download_fn)f)((cuzk_cuda_scalars*)handle, host, err, errlen);
}

static void call_scalars_free(void* f, void* handle) {
    ((cuzk_cuda_scalars_free_fn)f)((cuzk_cuda_scalars*)handle);
}

static int call_set_options(void* f, int dev, const cuzk_cuda_options* opts, char* err, size_t errlen) {
    return ((cuzk_cuda_set_options_fn)f)(dev, opts, err, errlen);
}

static int call_memory(void* f, int dev, uint64_t* held, uint64_t* peak, uint64_t* cap, uint64_t* pool, int reset_peak, char* err, size_t errlen) {
    return ((cuzk_cuda_memory_fn)f)(dev, held, peak, cap, pool, reset_peak, err, errlen);
}

static int call_stream_new(void* f, int dev, int group, size_t chunk, void** stream, char* err, size_t errlen) {
    cuzk_cuda_stream* stream_out = NULL;
    int rc = ((cuzk_cuda_stream_new_fn)f)(dev, group, chunk, &stream_out, err, errlen);
    if (rc == 0) *stream = stream_out;
    return rc;
}

static int call_stream_put(void* f, void* stream, int slot, const void* points, size_t n, char* err, size_t errlen) {
    return ((cuzk_cuda_stream_put_fn)f)((cuzk_cuda_stream*)stream, slot, points, n, err, errlen);
}

static int call_stream_msm(void* f, void* stream, int slot, void* scalars, size_t offset, size_t n, size_t set_n, void* result, char* err, size_t errlen) {
    return ((cuzk_cuda_stream_msm_fn)f)((cuzk_cuda_stream*)stream, slot, (cuzk_cuda_scalars*)scalars, offset, n, set_n, result, err, errlen);
}

static void call_stream_free(void* f, void* stream) {
    ((cuzk_cuda_stream_free_fn)f)((cuzk_cuda_stream*)stream);
}

static int call_stream_put_file(void* f, void* stream, int slot, const void* encoded, size_t n, char* err, size_t errlen) {
    return ((cuzk_cuda_stream_put_file_fn)f)((cuzk_cuda_stream*)stream, slot, encoded, n, err, errlen);
}

static int call_stream_wait(void* f, void* stream, int slot, char* err, size_t errlen) {
    return ((cuzk_cuda_stream_wait_fn)f)((cuzk_cuda_stream*)stream, slot, err, errlen);
}

static int call_stream_take_stats(void* f, void* stream, uint64_t* bytes, uint64_t* copy_ns, char* err, size_t errlen) {
    return ((cuzk_cuda_stream_take_stats_fn)f)((cuzk_cuda_stream*)stream, bytes, copy_ns, err, errlen);
}

static int call_h_abc_scalars(void* f, void* abc, const void* consts, void** scalars, char* err, size_t errlen) {
    cuzk_cuda_scalars* scalars_out = NULL;
    int rc = ((cuzk_cuda_h_abc_scalars_fn)f)((cuzk_cuda_abc*)abc, consts, &scalars_out, err, errlen);
    if (rc == 0) *scalars = scalars_out;
    return rc;
}

static int call_h_abc_lean_scalars(void* f, void* abc, const void* b, const void* c, const void* consts, void** scalars, char* err, size_t errlen) {
    cuzk_cuda_scalars* scalars_out = NULL;
    int rc = ((cuzk_cuda_h_abc_lean_scalars_fn)f)((cuzk_cuda_abc*)abc, b, c, consts, &scalars_out, err, errlen);
    if (rc == 0) *scalars = scalars_out;
    return rc;
}

static int call_host_register(void* f, void* p, size_t bytes, char* err, size_t errlen) {
    return ((cuzk_cuda_host_register_fn)f)(p, bytes, err, errlen);
}

static int call_host_unregister(void* f, void* p, char* err, size_t errlen) {
    return ((cuzk_cuda_host_unregister_fn)f)(p, err, errlen);
}

static int call_host_register_read_only(void* f, void* p, size_t bytes, char* err, size_t errlen) {
    return ((cuzk_cuda_host_register_read_only_fn)f)(p, bytes, err, errlen);
}

static int call_msm_g1_resident(void* f, void* points, void* scalars, void* result, char* err, size_t errlen) {
    return ((cuzk_cuda_msm_g1_resident_fn)f)((cuzk_cuda_g1_set*)points, (cuzk_cuda_scalars*)scalars, result, err, errlen);
}

static int call_msm_g2_resident(void* f, void* points, void* scalars, void* result, char* err, size_t errlen) {
    return ((cuzk_cuda_msm_g2_resident_fn)f)((cuzk_cuda_g2_set*)points, (cuzk_cuda_scalars*)scalars, result, err, errlen);
}

#endif
