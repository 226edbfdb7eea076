// calls.h — the cgo side of package cuda, included by each Go file that
// calls libcuzk_cuda.so: function pointer types for the symbols found with
// dlsym, checked by the compiler against cuda/cuzk_cuda.h, and one small
// caller per type (cgo cannot call a C function pointer directly).
//
// Go holds every handle as an unsafe.Pointer (void* here); the callers are
// the one place where it becomes the header's opaque type of its kind
// (cuzk_cuda_g1_set*, cuzk_cuda_scalars*, ...), so that each symbol is
// called through a pointer of its own declared type. The point-set calls
// shared by G1 and G2 take the group (1: G1, 2: G2) and call the symbol of
// that group's type.
#ifndef CUZK_CALLS_H
#define CUZK_CALLS_H
#include <dlfcn.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdint.h>
#include "cuzk_cuda.h"

typedef cuzk_cuda_g1_set g1s;
typedef cuzk_cuda_g2_set g2s;
typedef cuzk_cuda_scalars scv;
typedef cuzk_cuda_abc abct;
typedef cuzk_cuda_stream stm;

typedef int (*abi_fn)(void);
typedef int (*count_fn)(int*, char*, size_t);
typedef int (*info_fn)(int, char*, size_t, size_t*, size_t*, char*, size_t);
typedef int (*ntt_fn)(int, void*, size_t, int, int, const void*, char*, size_t);
typedef int (*h_fn)(int, void*, void*, void*, size_t, const void*, char*, size_t);
typedef int (*bench_fn)(int, size_t, int, const void*, double*, char*, size_t);
typedef int (*g1_upload_fn)(int, const void*, size_t, g1s**, char*, size_t);
typedef int (*g2_upload_fn)(int, const void*, size_t, g2s**, char*, size_t);
typedef void (*g1_free_fn)(g1s*);
typedef void (*g2_free_fn)(g2s*);
typedef void (*scalars_free_fn)(scv*);
typedef void (*abc_free_fn)(abct*);
typedef void (*stream_free_fn)(stm*);
typedef int (*g1_msm_fn)(g1s*, const void*, size_t, void*, char*, size_t);
typedef int (*g2_msm_fn)(g2s*, const void*, size_t, void*, char*, size_t);
typedef int (*g1_bench_msm_fn)(g1s*, size_t, int, double*, char*, size_t);
typedef int (*g2_bench_msm_fn)(g2s*, size_t, int, double*, char*, size_t);
typedef int (*sup_fn)(int, const void*, size_t, scv**, char*, size_t);
typedef int (*ssel_fn)(scv*, const void*, size_t, const uint64_t*, scv**, size_t*, char*, size_t);
typedef int (*sdown_fn)(scv*, void*, char*, size_t);
typedef int (*g1_mres_fn)(g1s*, scv*, void*, char*, size_t);
typedef int (*g2_mres_fn)(g2s*, scv*, void*, char*, size_t);
typedef int (*hreg_fn)(void*, size_t, char*, size_t);
typedef int (*hunreg_fn)(void*, char*, size_t);
typedef int (*hmsm_fn)(int, void*, void*, void*, size_t, const void*, g1s*, void*, double*, char*, size_t);
typedef int (*abcup_fn)(int, const void*, const void*, const void*, size_t, abct**, char*, size_t);
typedef int (*abcadd_fn)(abct*, const void*, const void*, char*, size_t);
typedef int (*hmsmabc_fn)(abct*, const void*, g1s*, void*, double*, char*, size_t);
typedef int (*g1_subgroup_fn)(g1s*, size_t, size_t, size_t*, size_t*, char*, size_t);
typedef int (*g2_subgroup_fn)(g2s*, size_t, size_t, size_t*, size_t*, char*, size_t);
typedef int (*g1_alloc_fn)(int, size_t, g1s**, char*, size_t);
typedef int (*g2_alloc_fn)(int, size_t, g2s**, char*, size_t);
typedef int (*g1_put_fn)(g1s*, size_t, const void*, size_t, char*, size_t);
typedef int (*g2_put_fn)(g2s*, size_t, const void*, size_t, char*, size_t);
typedef int (*setopt_fn)(int, const cuzk_cuda_options*, char*, size_t);
typedef int (*mem_fn)(int, uint64_t*, uint64_t*, uint64_t*, uint64_t*, int, char*, size_t);
typedef int (*stnew_fn)(int, int, size_t, stm**, char*, size_t);
typedef int (*stput_fn)(stm*, int, const void*, size_t, char*, size_t);
typedef int (*stmsm_fn)(stm*, int, scv*, size_t, size_t, size_t, void*, char*, size_t);
typedef int (*habcs_fn)(abct*, const void*, scv**, char*, size_t);
typedef int (*ststats_fn)(stm*, uint64_t*, uint64_t*, char*, size_t);
typedef void (*bench_force_fn)(int);
typedef int (*bench_refuse_fn)(int);

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
SAME(cuzk_cuda_g1_upload, g1_upload_fn);
SAME(cuzk_cuda_g2_upload, g2_upload_fn);
SAME(cuzk_cuda_g1_free, g1_free_fn);
SAME(cuzk_cuda_g2_free, g2_free_fn);
SAME(cuzk_cuda_scalars_free, scalars_free_fn);
SAME(cuzk_cuda_msm_g1, g1_msm_fn);
SAME(cuzk_cuda_msm_g2, g2_msm_fn);
SAME(cuzk_cuda_bench_msm_g1, g1_bench_msm_fn);
SAME(cuzk_cuda_bench_msm_g2, g2_bench_msm_fn);
SAME(cuzk_cuda_scalars_upload, sup_fn);
SAME(cuzk_cuda_scalars_select, ssel_fn);
SAME(cuzk_cuda_scalars_download, sdown_fn);
SAME(cuzk_cuda_msm_g1_resident, g1_mres_fn);
SAME(cuzk_cuda_msm_g2_resident, g2_mres_fn);
SAME(cuzk_cuda_host_register, hreg_fn);
SAME(cuzk_cuda_host_unregister, hunreg_fn);
SAME(cuzk_cuda_h_msm_g1, hmsm_fn);
SAME(cuzk_cuda_abc_upload, abcup_fn);
SAME(cuzk_cuda_abc_add, abcadd_fn);
SAME(cuzk_cuda_h_msm_g1_abc, hmsmabc_fn);
SAME(cuzk_cuda_abc_free, abc_free_fn);
SAME(cuzk_cuda_g1_check_subgroup, g1_subgroup_fn);
SAME(cuzk_cuda_g2_check_subgroup, g2_subgroup_fn);
SAME(cuzk_cuda_g1_alloc, g1_alloc_fn);
SAME(cuzk_cuda_g2_alloc, g2_alloc_fn);
SAME(cuzk_cuda_g1_put, g1_put_fn);
SAME(cuzk_cuda_g2_put, g2_put_fn);
SAME(cuzk_cuda_set_options, setopt_fn);
SAME(cuzk_cuda_memory, mem_fn);
SAME(cuzk_cuda_stream_new, stnew_fn);
SAME(cuzk_cuda_stream_put, stput_fn);
SAME(cuzk_cuda_stream_msm, stmsm_fn);
SAME(cuzk_cuda_stream_free, stream_free_fn);
SAME(cuzk_cuda_h_abc_scalars, habcs_fn);
SAME(cuzk_cuda_stream_take_stats, ststats_fn);
SAME(cuzk_cuda_bench_force_branch_convert, bench_force_fn);
SAME(cuzk_cuda_bench_refuse_pass_scratch, bench_refuse_fn);

// A handle written by the library into a typed out-parameter, stored into
// Go's void* only on success.
#define OUT(T, dst, call)            \
    do {                             \
        T* out_ = NULL;              \
        int rc_ = (call);            \
        if (rc_ == 0) *(dst) = out_; \
        return rc_;                  \
    } while (0)

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

// The point-set calls of group g (1: G1, 2: G2).
static int call_upload(void* f, int g, int d, const void* p, size_t n, void** h, char* e, size_t el) {
    if (g == 1) OUT(g1s, h, ((g1_upload_fn)f)(d, p, n, &out_, e, el));
    OUT(g2s, h, ((g2_upload_fn)f)(d, p, n, &out_, e, el));
}
static void call_set_free(void* f, int g, void* h) {
    if (g == 1) ((g1_free_fn)f)((g1s*)h);
    else ((g2_free_fn)f)((g2s*)h);
}
static int call_msm(void* f, int g, void* h, const void* s, size_t n, void* r, char* e, size_t el) {
    if (g == 1) return ((g1_msm_fn)f)((g1s*)h, s, n, r, e, el);
    return ((g2_msm_fn)f)((g2s*)h, s, n, r, e, el);
}
static int call_mres(void* f, int g, void* pts, void* sc, void* r, char* e, size_t el) {
    if (g == 1) return ((g1_mres_fn)f)((g1s*)pts, (scv*)sc, r, e, el);
    return ((g2_mres_fn)f)((g2s*)pts, (scv*)sc, r, e, el);
}
static int call_subgroup(void* f, int g, void* h, size_t off, size_t n, size_t* bad, size_t* first, char* e, size_t el) {
    if (g == 1) return ((g1_subgroup_fn)f)((g1s*)h, off, n, bad, first, e, el);
    return ((g2_subgroup_fn)f)((g2s*)h, off, n, bad, first, e, el);
}
static int call_alloc(void* f, int g, int d, size_t n, void** h, char* e, size_t el) {
    if (g == 1) OUT(g1s, h, ((g1_alloc_fn)f)(d, n, &out_, e, el));
    OUT(g2s, h, ((g2_alloc_fn)f)(d, n, &out_, e, el));
}
static int call_put(void* f, int g, void* h, size_t off, const void* p, size_t n, char* e, size_t el) {
    if (g == 1) return ((g1_put_fn)f)((g1s*)h, off, p, n, e, el);
    return ((g2_put_fn)f)((g2s*)h, off, p, n, e, el);
}
static int call_bench_msm(void* f, int g, void* h, size_t n, int reps, double* ms, char* e, size_t el) {
    if (g == 1) return ((g1_bench_msm_fn)f)((g1s*)h, n, reps, ms, e, el);
    return ((g2_bench_msm_fn)f)((g2s*)h, n, reps, ms, e, el);
}

// Scalar vectors.
static int call_sup(void* f, int d, const void* h, size_t n, void** out, char* e, size_t el) {
    OUT(scv, out, ((sup_fn)f)(d, h, n, &out_, e, el));
}
static int call_ssel(void* f, void* aux, const void* head, size_t nh, const uint64_t* words, void** out, size_t* n, char* e, size_t el) {
    OUT(scv, out, ((ssel_fn)f)((scv*)aux, head, nh, words, &out_, n, e, el));
}
static int call_sdown(void* f, void* h, void* host, char* e, size_t el) { return ((sdown_fn)f)((scv*)h, host, e, el); }
static void call_scalars_free(void* f, void* h) { ((scalars_free_fn)f)((scv*)h); }

// a, b, c and h.
static int call_hmsm(void* f, int d, void* a, void* b, void* c, size_t n, const void* k, void* h, void* r, double* ms, char* e, size_t el) {
    return ((hmsm_fn)f)(d, a, b, c, n, k, (g1s*)h, r, ms, e, el);
}
static int call_abcup(void* f, int d, const void* a, const void* b, const void* c, size_t n, void** h, char* e, size_t el) {
    OUT(abct, h, ((abcup_fn)f)(d, a, b, c, n, &out_, e, el));
}
static int call_abcadd(void* f, void* abc, const void* b, const void* c, char* e, size_t el) {
    return ((abcadd_fn)f)((abct*)abc, b, c, e, el);
}
static int call_hmsmabc(void* f, void* abc, const void* k, void* h, void* r, double* ms, char* e, size_t el) {
    return ((hmsmabc_fn)f)((abct*)abc, k, (g1s*)h, r, ms, e, el);
}
static int call_habcs(void* f, void* abc, const void* k, void** s, char* e, size_t el) {
    OUT(scv, s, ((habcs_fn)f)((abct*)abc, k, &out_, e, el));
}
static void call_abc_free(void* f, void* abc) { ((abc_free_fn)f)((abct*)abc); }

// Host memory, options, the memory count.
static int call_hreg(void* f, void* p, size_t n, char* e, size_t el) { return ((hreg_fn)f)(p, n, e, el); }
static int call_hunreg(void* f, void* p, char* e, size_t el) { return ((hunreg_fn)f)(p, e, el); }
static int call_setopt(void* f, int d, const cuzk_cuda_options* o, char* e, size_t el) { return ((setopt_fn)f)(d, o, e, el); }
static int call_mem(void* f, int d, uint64_t* held, uint64_t* peak, uint64_t* cap, uint64_t* pool, int reset, char* e,
                    size_t el) {
    return ((mem_fn)f)(d, held, peak, cap, pool, reset, e, el);
}

// Streamers.
static int call_stnew(void* f, int d, int group, size_t chunk, void** h, char* e, size_t el) {
    OUT(stm, h, ((stnew_fn)f)(d, group, chunk, &out_, e, el));
}
static int call_stput(void* f, void* h, int slot, const void* p, size_t n, char* e, size_t el) {
    return ((stput_fn)f)((stm*)h, slot, p, n, e, el);
}
static int call_stmsm(void* f, void* h, int slot, void* s, size_t off, size_t n, size_t set_n, void* r, char* e,
                      size_t el) {
    return ((stmsm_fn)f)((stm*)h, slot, (scv*)s, off, n, set_n, r, e, el);
}
static int call_ststats(void* f, void* h, uint64_t* bytes, uint64_t* ns, char* e, size_t el) {
    return ((ststats_fn)f)((stm*)h, bytes, ns, e, el);
}
static void call_stream_free(void* f, void* h) { ((stream_free_fn)f)((stm*)h); }

// The bench build's optional symbols.
static void call_bench_force(void* f, int on) { ((bench_force_fn)f)(on); }
static int call_bench_refuse(void* f, int passes) { return ((bench_refuse_fn)f)(passes); }

#endif
