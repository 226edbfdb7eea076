// Code generated from cuda/cuzk_cuda.h by core/backend/cuda/abigen_test.go (make generate); DO NOT EDIT.
//
// The C++ functions behind cuzk_cuda.h's entry points: cuzk::X is
// cuzk_cuda_X with every handle as the void* its concept file casts to
// its own type. A concept file defines each; api_gen.cu exports it.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "cuzk_cuda.h"

namespace cuzk {

int device_count(int* count, char* err, size_t errlen);
int device_info(int dev, char* name, size_t namelen, size_t* vram_total, size_t* vram_free, char* err, size_t errlen);
int ntt(int dev, void* x, size_t n, int inverse, int coset, const void* consts, char* err, size_t errlen);
int ntt_h(int dev, void* a, void* b, void* c, size_t n, const void* consts, char* err, size_t errlen);
int h_msm_g1(int dev, void* a, void* b, void* c, size_t n, const void* consts, void* handle, void* result, double* ms, char* err, size_t errlen);
int h_msm_g1_abc(void* abc, const void* consts, void* handle, void* result, double* ms, char* err, size_t errlen);
void bench_force_branch_convert(int on);
int bench_refuse_pass_scratch(int passes);
int bench_ntt(int dev, size_t n, int k, const void* consts, double* ms, char* err, size_t errlen);
int g1_upload(int dev, const void* points, size_t n, void** handle, char* err, size_t errlen);
void g1_free(void* handle);
int g1_alloc(int dev, size_t n, void** handle, char* err, size_t errlen);
int g1_put(void* handle, size_t offset, const void* points, size_t n, char* err, size_t errlen);
int msm_g1(void* handle, const void* scalars, size_t n, void* result, char* err, size_t errlen);
int bench_msm_g1(void* handle, size_t n, int reps, double* ms, char* err, size_t errlen);
int g2_upload(int dev, const void* points, size_t n, void** handle, char* err, size_t errlen);
void g2_free(void* handle);
int g2_alloc(int dev, size_t n, void** handle, char* err, size_t errlen);
int g2_put(void* handle, size_t offset, const void* points, size_t n, char* err, size_t errlen);
int msm_g2(void* handle, const void* scalars, size_t n, void* result, char* err, size_t errlen);
int bench_msm_g2(void* handle, size_t n, int reps, double* ms, char* err, size_t errlen);
int g1_check_subgroup(void* handle, size_t offset, size_t n, size_t* n_bad, size_t* first_bad, char* err, size_t errlen);
int g2_check_subgroup(void* handle, size_t offset, size_t n, size_t* n_bad, size_t* first_bad, char* err, size_t errlen);
int scalars_upload(int dev, const void* host, size_t n, void** handle, char* err, size_t errlen);
int scalars_select(void* aux, const void* head, size_t n_head, const uint64_t* words, void** handle, size_t* n_out, char* err, size_t errlen);
int scalars_download(void* handle, void* host, char* err, size_t errlen);
void scalars_free(void* handle);
int set_options(int dev, const cuzk_cuda_options* opts, char* err, size_t errlen);
int memory(int dev, uint64_t* held, uint64_t* peak, uint64_t* cap, uint64_t* pool, int reset_peak, char* err, size_t errlen);
int stream_new(int dev, int group, size_t chunk, void** stream, char* err, size_t errlen);
int stream_put(void* stream, int slot, const void* points, size_t n, char* err, size_t errlen);
int stream_msm(void* stream, int slot, void* scalars, size_t offset, size_t n, size_t set_n, void* result, char* err, size_t errlen);
void stream_free(void* stream);
int stream_put_file(void* stream, int slot, const void* encoded, size_t n, char* err, size_t errlen);
int stream_wait(void* stream, int slot, char* err, size_t errlen);
int stream_take_stats(void* stream, uint64_t* bytes, uint64_t* copy_ns, char* err, size_t errlen);
int h_abc_scalars(void* abc, const void* consts, void** scalars, char* err, size_t errlen);
int h_abc_lean_scalars(void* abc, const void* b, const void* c, const void* consts, void** scalars, char* err, size_t errlen);
int host_register(void* p, size_t bytes, char* err, size_t errlen);
int host_unregister(void* p, char* err, size_t errlen);
int host_register_read_only(void* p, size_t bytes, char* err, size_t errlen);
int msm_g1_resident(void* points, void* scalars, void* result, char* err, size_t errlen);
int msm_g2_resident(void* points, void* scalars, void* result, char* err, size_t errlen);

}  // namespace cuzk
