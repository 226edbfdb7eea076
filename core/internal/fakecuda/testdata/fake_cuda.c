/* A fake libcuzk_cuda.so for the tests: one device that accepts every call
 * of cuda/cuzk_cuda.h and computes nothing (point sets pass the subgroup
 * check, MSMs return infinity), unless told to fail; like the library it
 * refuses an a, b, c handle that holds the wrong parts for a call. The environment
 * variable CUZK_FAKE_CUDA_FAIL, read at each call, lists the calls that
 * fail and their return codes: "g1_check_subgroup=1700,msm_g1=1002" makes
 * cuzk_cuda_g1_check_subgroup fail with cudaErrorIllegalAddress (a sticky
 * error) and cuzk_cuda_msm_g1 with cudaErrorMemoryAllocation; "*=1002"
 * fails every call that can. Built by fakecuda.Build. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk_cuda.h"

/* fail returns the code CUZK_FAKE_CUDA_FAIL gives op (0: none), with the
 * library's kind of message. */
static int fail(const char* op, char* err, size_t errlen) {
    const char* spec = getenv("CUZK_FAKE_CUDA_FAIL");
    if (spec == NULL) return 0;
    size_t n = strlen(op);
    for (const char* p = spec; *p;) {
        const char* end = strchr(p, ',');
        if (end == NULL) end = p + strlen(p);
        const char* eq = memchr(p, '=', (size_t)(end - p));
        if (eq != NULL && (((size_t)(eq - p) == n && strncmp(p, op, n) == 0) || (eq - p == 1 && *p == '*'))) {
            int code = atoi(eq + 1);
            if (err != NULL && errlen > 0) snprintf(err, errlen, "%s: failure injected by CUZK_FAKE_CUDA_FAIL", op);
            return code;
        }
        p = *end ? end + 1 : end;
    }
    return 0;
}

#define FAIL(op)                           \
    do {                                   \
        int rc_ = fail(op, err, errlen);   \
        if (rc_ != 0) return rc_;          \
    } while (0)

/* Every handle is one of these. */
typedef struct fake_handle {
    size_t n;
    int parts; /* an abc handle's: 1 while it holds a alone, 3 with b and c */
} fake_handle;

static void* handle(size_t n) {
    fake_handle* h = calloc(1, sizeof(fake_handle));
    if (h != NULL) h->n = n;
    return h;
}

/* An empty result block: nw = 0, the point at infinity. */
static void empty_result(void* result) {
    if (result != NULL) memset(result, 0, 16);
}

int cuzk_cuda_abi_version(void) { return CUZK_CUDA_ABI_VERSION; }

int cuzk_cuda_device_count(int* count, char* err, size_t errlen) {
    FAIL("device_count");
    *count = 1;
    return 0;
}

int cuzk_cuda_device_info(int dev, char* name, size_t namelen, size_t* vram_total, size_t* vram_free, char* err,
                          size_t errlen) {
    FAIL("device_info");
    if (dev != 0) {
        snprintf(err, errlen, "no device %d", dev);
        return 1;
    }
    snprintf(name, namelen, "fake GPU");
    *vram_total = (size_t)16 << 30;
    *vram_free = (size_t)15 << 30;
    return 0;
}

int cuzk_cuda_ntt(int dev, void* x, size_t n, int inverse, int coset, const void* consts, char* err, size_t errlen) {
    (void)dev, (void)x, (void)n, (void)inverse, (void)coset, (void)consts;
    FAIL("ntt");
    return 0;
}

int cuzk_cuda_ntt_h(int dev, void* a, void* b, void* c, size_t n, const void* consts, char* err, size_t errlen) {
    (void)dev, (void)a, (void)b, (void)c, (void)n, (void)consts;
    FAIL("ntt_h");
    return 0;
}

int cuzk_cuda_h_msm_g1(int dev, void* a, void* b, void* c, size_t n, const void* consts, cuzk_cuda_g1_set* h,
                       void* result, double* ms, char* err, size_t errlen) {
    (void)dev, (void)a, (void)b, (void)c, (void)n, (void)consts, (void)h;
    FAIL("h_msm_g1");
    empty_result(result);
    ms[0] = ms[1] = 0;
    return 0;
}

int cuzk_cuda_abc_upload(int dev, const void* a, const void* b, const void* c, size_t n, cuzk_cuda_abc** abc, char* err,
                         size_t errlen) {
    (void)dev, (void)a, (void)c;
    FAIL("abc_upload");
    *abc = handle(n);
    if (*abc != NULL) ((fake_handle*)*abc)->parts = b != NULL ? 3 : 1;
    return 0;
}

/* abc_parts refuses an abc handle that does not hold want parts, as the
 * library does. */
static int abc_parts(const void* abc, int want, char* err, size_t errlen) {
    if (((const fake_handle*)abc)->parts == want) return 0;
    if (err != NULL && errlen > 0) snprintf(err, errlen, "the handle holds %d of a, b, c, not %d", ((const fake_handle*)abc)->parts, want);
    return 1;
}

int cuzk_cuda_abc_add(cuzk_cuda_abc* abc, const void* b, const void* c, char* err, size_t errlen) {
    (void)b, (void)c;
    FAIL("abc_add");
    if (abc_parts(abc, 1, err, errlen)) return 1;
    ((fake_handle*)abc)->parts = 3;
    return 0;
}

int cuzk_cuda_h_msm_g1_abc(cuzk_cuda_abc* abc, const void* consts, cuzk_cuda_g1_set* h, void* result, double* ms,
                           char* err, size_t errlen) {
    (void)consts, (void)h;
    int bad = abc_parts(abc, 3, err, errlen);
    free(abc);
    if (bad) return bad;
    FAIL("h_msm_g1_abc");
    empty_result(result);
    ms[0] = ms[1] = 0;
    return 0;
}

void cuzk_cuda_abc_free(cuzk_cuda_abc* abc) { free(abc); }

#define POINT_SETS(g)                                                                                                   \
    int cuzk_cuda_##g##_upload(int dev, const void* points, size_t n, cuzk_cuda_##g##_set** h, char* err,              \
                               size_t errlen) {                                                                         \
        (void)dev, (void)points;                                                                                        \
        FAIL(#g "_upload");                                                                                             \
        *h = handle(n);                                                                                                 \
        return 0;                                                                                                       \
    }                                                                                                                   \
    void cuzk_cuda_##g##_free(cuzk_cuda_##g##_set* h) { free(h); }                                                      \
    int cuzk_cuda_##g##_alloc(int dev, size_t n, cuzk_cuda_##g##_set** h, char* err, size_t errlen) {                   \
        (void)dev;                                                                                                      \
        FAIL(#g "_alloc");                                                                                              \
        *h = handle(n);                                                                                                 \
        return 0;                                                                                                       \
    }                                                                                                                   \
    int cuzk_cuda_##g##_put(cuzk_cuda_##g##_set* h, size_t offset, const void* points, size_t n, char* err,            \
                            size_t errlen) {                                                                            \
        (void)points;                                                                                                   \
        FAIL(#g "_put");                                                                                                \
        if (offset + n > ((fake_handle*)h)->n) {                                                                        \
            snprintf(err, errlen, "points [%zu, %zu) past a set of %zu", offset, offset + n, ((fake_handle*)h)->n);   \
            return 1;                                                                                                   \
        }                                                                                                               \
        return 0;                                                                                                       \
    }                                                                                                                   \
    int cuzk_cuda_msm_##g(cuzk_cuda_##g##_set* h, const void* scalars, size_t n, void* result, char* err,              \
                          size_t errlen) {                                                                              \
        (void)h, (void)scalars, (void)n;                                                                                \
        FAIL("msm_" #g);                                                                                                \
        empty_result(result);                                                                                           \
        return 0;                                                                                                       \
    }                                                                                                                   \
    int cuzk_cuda_##g##_check_subgroup(cuzk_cuda_##g##_set* h, size_t offset, size_t n, size_t* n_bad,                 \
                                       size_t* first_bad, char* err, size_t errlen) {                                   \
        (void)h, (void)offset, (void)n;                                                                                 \
        FAIL(#g "_check_subgroup");                                                                                     \
        *n_bad = 0;                                                                                                     \
        *first_bad = SIZE_MAX;                                                                                          \
        return 0;                                                                                                       \
    }                                                                                                                   \
    int cuzk_cuda_msm_##g##_resident(cuzk_cuda_##g##_set* points, cuzk_cuda_scalars* scalars, void* result, char* err, \
                                     size_t errlen) {                                                                   \
        (void)points, (void)scalars;                                                                                    \
        FAIL("msm_" #g "_resident");                                                                                    \
        empty_result(result);                                                                                           \
        return 0;                                                                                                       \
    }

POINT_SETS(g1)
POINT_SETS(g2)

int cuzk_cuda_scalars_upload(int dev, const void* host, size_t n, cuzk_cuda_scalars** h, char* err, size_t errlen) {
    (void)dev, (void)host;
    FAIL("scalars_upload");
    *h = handle(n);
    return 0;
}

int cuzk_cuda_scalars_select(cuzk_cuda_scalars* aux, const void* head, size_t n_head, const uint64_t* words,
                             cuzk_cuda_scalars** h, size_t* n_out, char* err, size_t errlen) {
    (void)head;
    FAIL("scalars_select");
    size_t n = n_head, total = ((fake_handle*)aux)->n;
    for (size_t i = 0; i < total; i++) n += (words[i / 64] >> (i % 64)) & 1;
    *h = handle(n);
    *n_out = n;
    return 0;
}

int cuzk_cuda_scalars_download(cuzk_cuda_scalars* h, void* host, char* err, size_t errlen) {
    FAIL("scalars_download");
    memset(host, 0, ((fake_handle*)h)->n * 32);
    return 0;
}

void cuzk_cuda_scalars_free(cuzk_cuda_scalars* h) { free(h); }

int cuzk_cuda_set_options(int dev, const cuzk_cuda_options* opts, char* err, size_t errlen) {
    (void)dev;
    FAIL("set_options");
    if (opts->host_sync < 0 || opts->host_sync > 3) { /* as the library refuses it */
        snprintf(err, errlen, "host_sync %d: want 0 (auto), 1 (spin), 2 (yield) or 3 (blocking)", opts->host_sync);
        return 1;
    }
    return 0;
}

int cuzk_cuda_memory(int dev, uint64_t* held, uint64_t* peak, uint64_t* cap, uint64_t* pool, int reset_peak, char* err,
                     size_t errlen) {
    (void)dev, (void)reset_peak;
    FAIL("memory");
    *held = *peak = *cap = 0;
    if (pool != NULL) *pool = 0;
    return 0;
}

int cuzk_cuda_stream_new(int dev, int group, size_t chunk, cuzk_cuda_stream** s, char* err, size_t errlen) {
    (void)dev, (void)group;
    FAIL("stream_new");
    *s = handle(chunk);
    return 0;
}

int cuzk_cuda_stream_put(cuzk_cuda_stream* s, int slot, const void* points, size_t n, char* err, size_t errlen) {
    (void)s, (void)slot, (void)points, (void)n;
    FAIL("stream_put");
    return 0;
}

int cuzk_cuda_stream_put_file(cuzk_cuda_stream* s, int slot, const void* encoded, size_t n, char* err, size_t errlen) {
    (void)s, (void)slot, (void)encoded, (void)n;
    FAIL("stream_put_file");
    return 0;
}

int cuzk_cuda_stream_msm(cuzk_cuda_stream* s, int slot, cuzk_cuda_scalars* scalars, size_t offset, size_t n,
                         size_t set_n, void* result, char* err, size_t errlen) {
    (void)s, (void)slot, (void)scalars, (void)offset, (void)n, (void)set_n;
    FAIL("stream_msm");
    empty_result(result);
    return 0;
}

void cuzk_cuda_stream_free(cuzk_cuda_stream* s) { free(s); }

int cuzk_cuda_stream_wait(cuzk_cuda_stream* s, int slot, char* err, size_t errlen) {
    (void)s, (void)slot;
    FAIL("stream_wait");
    return 0;
}

int cuzk_cuda_stream_take_stats(cuzk_cuda_stream* s, uint64_t* bytes, uint64_t* copy_ns, char* err, size_t errlen) {
    (void)s;
    FAIL("stream_take_stats");
    *bytes = *copy_ns = 0;
    return 0;
}

/* h_scalars is the h entries' shared part: the handle consumed, refused
 * unless it holds want parts, then op's injected failure or h's n − 1
 * scalars. */
static int h_scalars(cuzk_cuda_abc* abc, int want, const char* op, cuzk_cuda_scalars** scalars, char* err,
                     size_t errlen) {
    size_t n = ((fake_handle*)abc)->n;
    int bad = abc_parts(abc, want, err, errlen);
    free(abc);
    if (bad) return bad;
    FAIL(op);
    *scalars = handle(n > 0 ? n - 1 : 0);
    return 0;
}

int cuzk_cuda_h_abc_scalars(cuzk_cuda_abc* abc, const void* consts, cuzk_cuda_scalars** scalars, char* err,
                            size_t errlen) {
    (void)consts;
    return h_scalars(abc, 3, "h_abc_scalars", scalars, err, errlen);
}

int cuzk_cuda_h_abc_lean_scalars(cuzk_cuda_abc* abc, const void* b, const void* c, const void* consts,
                                 cuzk_cuda_scalars** scalars, char* err, size_t errlen) {
    (void)b, (void)c, (void)consts;
    return h_scalars(abc, 1, "h_abc_lean_scalars", scalars, err, errlen);
}

int cuzk_cuda_host_register(void* p, size_t bytes, char* err, size_t errlen) {
    (void)p, (void)bytes;
    FAIL("host_register");
    return 0;
}

int cuzk_cuda_host_register_read_only(void* p, size_t bytes, char* err, size_t errlen) {
    (void)p, (void)bytes;
    FAIL("host_register_read_only");
    return 0;
}

int cuzk_cuda_host_unregister(void* p, char* err, size_t errlen) {
    (void)p;
    FAIL("host_unregister");
    return 0;
}
