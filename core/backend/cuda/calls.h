// calls.h — the cgo side of package cuda, included by each Go file that
// calls libcuzk_cuda.so: function pointer types for the symbols found with
// dlsym, checked by the compiler against cuda/cuzk_cuda.h, and one small
// caller per type (cgo cannot call a C function pointer directly).
#ifndef CUZK_CALLS_H
#define CUZK_CALLS_H
#include <dlfcn.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdint.h>
#include "cuzk_cuda.h"

typedef int (*abi_fn)(void);
typedef int (*count_fn)(int*, char*, size_t);
typedef int (*info_fn)(int, char*, size_t, size_t*, size_t*, char*, size_t);
typedef int (*ntt_fn)(int, void*, size_t, int, int, const void*, char*, size_t);
typedef int (*h_fn)(int, void*, void*, void*, size_t, const void*, char*, size_t);
typedef int (*bench_fn)(int, size_t, int, const void*, double*, char*, size_t);
typedef int (*upload_fn)(int, const void*, size_t, void**, char*, size_t);
typedef void (*free_fn)(void*);
typedef int (*msm_fn)(void*, const void*, size_t, void*, char*, size_t);
typedef int (*bench_msm_fn)(void*, size_t, int, double*, char*, size_t);
typedef int (*sup_fn)(int, const void*, size_t, void**, char*, size_t);
typedef int (*ssel_fn)(void*, const void*, size_t, const uint64_t*, void**, size_t*, char*, size_t);
typedef int (*sdown_fn)(void*, void*, char*, size_t);
typedef int (*mres_fn)(void*, void*, void*, char*, size_t);
typedef int (*hreg_fn)(void*, size_t, char*, size_t);
typedef int (*hunreg_fn)(void*, char*, size_t);
typedef int (*hmsm_fn)(int, void*, void*, void*, size_t, const void*, void*, void*, double*, char*, size_t);
typedef int (*abcup_fn)(int, const void*, const void*, const void*, size_t, void**, char*, size_t);
typedef int (*abcadd_fn)(void*, const void*, const void*, char*, size_t);
typedef int (*hmsmabc_fn)(void*, const void*, void*, void*, double*, char*, size_t);
typedef int (*subgroup_fn)(void*, size_t, size_t, size_t*, size_t*, char*, size_t);
typedef int (*alloc_fn)(int, size_t, void**, char*, size_t);
typedef int (*put_fn)(void*, size_t, const void*, size_t, char*, size_t);
typedef int (*setopt_fn)(int, const cuzk_cuda_options*, char*, size_t);
typedef int (*mem_fn)(int, uint64_t*, uint64_t*, uint64_t*, uint64_t*, int, char*, size_t);
typedef int (*stnew_fn)(int, int, size_t, void**, char*, size_t);
typedef int (*stput_fn)(void*, int, const void*, size_t, char*, size_t);
typedef int (*stmsm_fn)(void*, int, void*, size_t, size_t, size_t, void*, char*, size_t);
typedef int (*habcs_fn)(void*, const void*, void**, char*, size_t);
typedef int (*ststats_fn)(void*, uint64_t*, uint64_t*, char*, size_t);

// The library is loaded with dlopen, so nothing links against its
// declarations: these checks make the compiler compare every function
// pointer type used here with the header.
#define SAME(fn, T) _Static_assert(__builtin_types_compatible_p(__typeof__(&fn), T), #fn " differs from " #T)
SAME(cuzk_cuda_abi_version, abi_fn);
SAME(cuzk_cuda_device_count, count_fn);
SAME(cuzk_cuda_device_info, info_fn);
SAME(cuzk_cuda_ntt, ntt_fn);
SAME(cuzk_cuda_ntt_h, h_fn);
SAME(cuzk_cuda_bench_ntt, bench_fn);
SAME(cuzk_cuda_g1_upload, upload_fn);
SAME(cuzk_cuda_g2_upload, upload_fn);
SAME(cuzk_cuda_g1_free, free_fn);
SAME(cuzk_cuda_g2_free, free_fn);
SAME(cuzk_cuda_scalars_free, free_fn);
SAME(cuzk_cuda_msm_g1, msm_fn);
SAME(cuzk_cuda_msm_g2, msm_fn);
SAME(cuzk_cuda_bench_msm_g1, bench_msm_fn);
SAME(cuzk_cuda_bench_msm_g2, bench_msm_fn);
SAME(cuzk_cuda_scalars_upload, sup_fn);
SAME(cuzk_cuda_scalars_select, ssel_fn);
SAME(cuzk_cuda_scalars_download, sdown_fn);
SAME(cuzk_cuda_msm_g1_resident, mres_fn);
SAME(cuzk_cuda_msm_g2_resident, mres_fn);
SAME(cuzk_cuda_host_register, hreg_fn);
SAME(cuzk_cuda_host_unregister, hunreg_fn);
SAME(cuzk_cuda_h_msm_g1, hmsm_fn);
SAME(cuzk_cuda_abc_upload, abcup_fn);
SAME(cuzk_cuda_abc_add, abcadd_fn);
SAME(cuzk_cuda_h_msm_g1_abc, hmsmabc_fn);
SAME(cuzk_cuda_abc_free, free_fn);
SAME(cuzk_cuda_g1_check_subgroup, subgroup_fn);
SAME(cuzk_cuda_g2_check_subgroup, subgroup_fn);
SAME(cuzk_cuda_g1_alloc, alloc_fn);
SAME(cuzk_cuda_g2_alloc, alloc_fn);
SAME(cuzk_cuda_g1_put, put_fn);
SAME(cuzk_cuda_g2_put, put_fn);
SAME(cuzk_cuda_set_options, setopt_fn);
SAME(cuzk_cuda_memory, mem_fn);
SAME(cuzk_cuda_stream_new, stnew_fn);
SAME(cuzk_cuda_stream_put, stput_fn);
SAME(cuzk_cuda_stream_msm, stmsm_fn);
SAME(cuzk_cuda_stream_free, free_fn);
SAME(cuzk_cuda_h_abc_scalars, habcs_fn);
SAME(cuzk_cuda_stream_take_stats, ststats_fn);

static int call_abi(void* f) { return ((abi_fn)f)(); }
static int call_count(void* f, int* n, char* e, size_t el) { return ((count_fn)f)(n, e, el); }
static int call_info(void* f, int d, char* name, size_t nl, size_t* t, size_t* fr, char* e, size_t el) {
    return ((info_fn)f)(d, name, nl, t, fr, e, el);
}
static int call_ntt(void* f, int d, void* x, size_t n, int inv, int coset, const void* k, char* e, size_t el) {
    return ((ntt_fn)f)(d, x, n, inv, coset, k, e, el);
}
static int call_h(void* f, int d, void* a, void* b, void* c, size_t n, const void* k, char* e, size_t el) {
    return ((h_fn)f)(d, a, b, c, n, k, e, el);
}
static int call_bench(void* f, int d, size_t n, int r, const void* k, double* ms, char* e, size_t el) {
    return ((bench_fn)f)(d, n, r, k, ms, e, el);
}
static int call_upload(void* f, int d, const void* p, size_t n, void** h, char* e, size_t el) {
    return ((upload_fn)f)(d, p, n, h, e, el);
}
static void call_free(void* f, void* h) { ((free_fn)f)(h); }
static int call_msm(void* f, void* h, const void* s, size_t n, void* r, char* e, size_t el) {
    return ((msm_fn)f)(h, s, n, r, e, el);
}
static int call_sup(void* f, int d, const void* h, size_t n, void** out, char* e, size_t el) {
    return ((sup_fn)f)(d, h, n, out, e, el);
}
static int call_ssel(void* f, void* aux, const void* head, size_t nh, const uint64_t* words, void** out, size_t* n, char* e, size_t el) {
    return ((ssel_fn)f)(aux, head, nh, words, out, n, e, el);
}
static int call_sdown(void* f, void* h, void* host, char* e, size_t el) { return ((sdown_fn)f)(h, host, e, el); }
static int call_mres(void* f, void* pts, void* sc, void* r, char* e, size_t el) { return ((mres_fn)f)(pts, sc, r, e, el); }
static int call_hreg(void* f, void* p, size_t n, char* e, size_t el) { return ((hreg_fn)f)(p, n, e, el); }
static int call_hunreg(void* f, void* p, char* e, size_t el) { return ((hunreg_fn)f)(p, e, el); }
static int call_hmsm(void* f, int d, void* a, void* b, void* c, size_t n, const void* k, void* h, void* r, double* ms, char* e, size_t el) {
    return ((hmsm_fn)f)(d, a, b, c, n, k, h, r, ms, e, el);
}
static int call_abcup(void* f, int d, const void* a, const void* b, const void* c, size_t n, void** h, char* e, size_t el) {
    return ((abcup_fn)f)(d, a, b, c, n, h, e, el);
}
static int call_abcadd(void* f, void* abc, const void* b, const void* c, char* e, size_t el) {
    return ((abcadd_fn)f)(abc, b, c, e, el);
}
static int call_hmsmabc(void* f, void* abc, const void* k, void* h, void* r, double* ms, char* e, size_t el) {
    return ((hmsmabc_fn)f)(abc, k, h, r, ms, e, el);
}
static int call_subgroup(void* f, void* h, size_t off, size_t n, size_t* bad, size_t* first, char* e, size_t el) {
    return ((subgroup_fn)f)(h, off, n, bad, first, e, el);
}
static int call_alloc(void* f, int d, size_t n, void** h, char* e, size_t el) { return ((alloc_fn)f)(d, n, h, e, el); }
static int call_put(void* f, void* h, size_t off, const void* p, size_t n, char* e, size_t el) {
    return ((put_fn)f)(h, off, p, n, e, el);
}
static void call_bench_force(void* f, int on) { ((void (*)(int))f)(on); }
static int call_bench_refuse(void* f, int passes) { return ((int (*)(int))f)(passes); }
static int call_bench_msm(void* f, void* h, size_t n, int reps, double* ms, char* e, size_t el) {
    return ((bench_msm_fn)f)(h, n, reps, ms, e, el);
}
static int call_setopt(void* f, int d, const cuzk_cuda_options* o, char* e, size_t el) { return ((setopt_fn)f)(d, o, e, el); }
static int call_mem(void* f, int d, uint64_t* held, uint64_t* peak, uint64_t* cap, uint64_t* pool, int reset, char* e,
                    size_t el) {
    return ((mem_fn)f)(d, held, peak, cap, pool, reset, e, el);
}
static int call_stnew(void* f, int d, int group, size_t chunk, void** h, char* e, size_t el) {
    return ((stnew_fn)f)(d, group, chunk, h, e, el);
}
static int call_stput(void* f, void* h, int slot, const void* p, size_t n, char* e, size_t el) {
    return ((stput_fn)f)(h, slot, p, n, e, el);
}
static int call_stmsm(void* f, void* h, int slot, void* s, size_t off, size_t n, size_t set_n, void* r, char* e,
                      size_t el) {
    return ((stmsm_fn)f)(h, slot, s, off, n, set_n, r, e, el);
}
static int call_ststats(void* f, void* h, uint64_t* bytes, uint64_t* ns, char* e, size_t el) {
    return ((ststats_fn)f)(h, bytes, ns, e, el);
}
static int call_habcs(void* f, void* abc, const void* k, void** s, char* e, size_t el) { return ((habcs_fn)f)(abc, k, s, e, el); }

#endif
