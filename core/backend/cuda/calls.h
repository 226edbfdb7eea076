// calls.h — the cgo side of package cuda, included by each Go file that
// calls libcuzk_cuda.so. calls_gen.h (generated from cuda/cuzk_cuda.h) has a
// caller for each entry point, call_<name>(f, ...), which takes Go's
// unsafe.Pointer handles (void* here) and passes them as the header's opaque
// type of their kind. Below: the point-set calls shared by G1 and G2, which
// take the group (1: G1, 2: G2) and call the symbol of that group's type.
#ifndef CUZK_CALLS_H
#define CUZK_CALLS_H
#include <dlfcn.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdint.h>
#include "cuzk_cuda.h"
#include "calls_gen.h"

static int call_upload(void* f, int g, int d, const void* p, size_t n, void** h, char* e, size_t el) {
    return g == 1 ? call_g1_upload(f, d, p, n, h, e, el) : call_g2_upload(f, d, p, n, h, e, el);
}
static void call_set_free(void* f, int g, void* h) {
    if (g == 1) call_g1_free(f, h);
    else call_g2_free(f, h);
}
static int call_msm(void* f, int g, void* h, const void* s, size_t n, void* r, char* e, size_t el) {
    return g == 1 ? call_msm_g1(f, h, s, n, r, e, el) : call_msm_g2(f, h, s, n, r, e, el);
}
static int call_mres(void* f, int g, void* pts, void* sc, void* r, char* e, size_t el) {
    return g == 1 ? call_msm_g1_resident(f, pts, sc, r, e, el) : call_msm_g2_resident(f, pts, sc, r, e, el);
}
static int call_subgroup(void* f, int g, void* h, size_t off, size_t n, size_t* bad, size_t* first, char* e, size_t el) {
    return g == 1 ? call_g1_check_subgroup(f, h, off, n, bad, first, e, el)
                  : call_g2_check_subgroup(f, h, off, n, bad, first, e, el);
}
static int call_alloc(void* f, int g, int d, size_t n, void** h, char* e, size_t el) {
    return g == 1 ? call_g1_alloc(f, d, n, h, e, el) : call_g2_alloc(f, d, n, h, e, el);
}
static int call_put(void* f, int g, void* h, size_t off, const void* p, size_t n, char* e, size_t el) {
    return g == 1 ? call_g1_put(f, h, off, p, n, e, el) : call_g2_put(f, h, off, p, n, e, el);
}
static int call_bench_msm(void* f, int g, void* h, size_t n, int reps, double* ms, char* e, size_t el) {
    return g == 1 ? call_bench_msm_g1(f, h, n, reps, ms, e, el) : call_bench_msm_g2(f, h, n, reps, ms, e, el);
}

#endif
