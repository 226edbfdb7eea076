/*
 * dropin_bench — times libcuzk through the supraseal-c2 drop-in ABI the way
 * bellperson drives it, from `cuzk dump-assignment` output.
 *
 * Build (from the repository root; `make dropin-bench` does the same into
 * build/dropin_bench). Needs only a C compiler and a built build/libcuzk.so,
 * so it also builds on a machine without Go:
 *
 *   cc -O2 -std=c11 -D_GNU_SOURCE -Iinclude tests/dropin/dropin_bench.c \
 *      -Lbuild -lcuzk -lpthread -ldl -Wl,-rpath,'$ORIGIN' -o build/dropin_bench
 *
 * Usage:
 *   build/dropin_bench --params FILE --dump DIR [--dump DIR ...]
 *                      [--circuits N] [--calls K] [--mode sync|async|both]
 *                      [--depth D] [--gpu-index I] [--seed S]
 *                      [--threads T] [--gpus I,J,...]
 *                      [--config TEXT|FILE] [--no-verify] [--srs-only]
 *
 *   --params FILE   the .params file the dumps were made with
 *   --dump DIR      a dump-assignment directory; circuit i of a call uses
 *                   dump i mod (number of --dump), so one dump is proved N
 *                   times or several dumps side by side (default N = dumps)
 *   --calls K       calls back to back per mode (default 3); the first is
 *                   reported as "cold", min and median are over the others
 *                   (with --mode both, async runs after sync: its first call
 *                   finds the SRS already on the device)
 *   --mode          sync: generate_groth16_proofs_c; async:
 *                   generate_groth16_proofs_start_c + finalize_groth16_proof_c;
 *                   both (default): sync then async
 *   --depth D       async calls in flight (default 1: start, finalize; 2:
 *                   call k+1 starts before call k is finalized)
 *   --gpu-index I   passed as gpu_index (default -1: any device); gpu_mtx is
 *                   NULL, as in bellperson's synchronous path
 *   --threads T     T host threads make the sync calls at once (default 1;
 *                   sync mode only), each with its own gpu_mtx
 *                   (create_gpu_mutex), as a host that runs one prover
 *                   thread per GPU; per-circuit times are over every
 *                   thread's warm calls, throughput over all of them
 *   --gpus I,J,...  thread t passes the t-th index as gpu_index (default:
 *                   --gpu-index for every thread): --threads 2 --gpus 0,1
 *                   pins a thread to each of two GPUs
 *   --seed S        r_s[i], s_s[i] are the field elements whose Montgomery
 *                   form is the small integer 1000*S + 2i + 1 (+ 2 for s):
 *                   fixed per circuit, so sync and async proofs of the same
 *                   circuit must be identical bytes (checked)
 *   --config X      engine configuration (TOML or JSON text, or a file
 *                   holding it), applied with cuzk_config before anything
 *   --no-verify     skip the verification of the proofs (see below)
 *   --keep-abc      async: free a, b, c after finalize instead of when start
 *                   returns (bellperson's way), to see what their freeing
 *                   beside the device's work costs
 *   --shared-abc    every circuit of a call passes its dump's own a, b, c
 *                   (no per-circuit copies: ten circuits of 2^27 would be
 *                   130 GB of them; the library copies what it keeps)
 *   --unlink-params remove the parameter file once create_SRS returns (a
 *                   host that keeps it in RAM, /dev/shm, gets its pages
 *                   back; a proof that would read it again fails); needs
 *                   --no-verify
 *   --srs-only      time create_SRS alone and exit
 *   --proofs-out F  write the first call's proofs (384 bytes each, in
 *                   memory layout) to F, to compare runs across processes
 *
 * Each call is what bellperson does: a, b, c copied into fresh buffers per
 * circuit (synthesis output), r_s and s_s allocated per call; the async path
 * frees r_s, s_s, a, b, c as soon as start returns and keeps the inputs, aux
 * and density bitmaps until finalize. The copies are made outside the timed
 * region.
 *
 * Output: a table on stdout and one line per metric, `metric NAME VALUE UNIT`.
 * GPU utilisation is sampled every 100 ms through NVML (libnvidia-ml.so.1,
 * loaded at run time; "n/a" without it) and also printed per second.
 * Peak RSS is getrusage's high-water mark after the calls, printed beside
 * the bytes that must exist anyway (the params file, and a, b, c, inputs,
 * aux of the N circuits of one call) and the dump files the bench itself
 * holds (its source of the a, b, c copies), so that the overhead shows.
 *
 * Verification, after the timed work and after the SRS is dropped: every
 * proof is compressed (cuzk_proof_compress) and checked with cuzk_verify
 * against the params file's verifying key (loaded with
 * CUZK_FLAG_TRUSTED_PARAMS) and the dump's inputs without ONE; proofs of
 * the same circuit index are compared byte for byte across calls and modes.
 * Exit status: 0 all good, 1 a call failed or a proof did not verify or
 * differ, 2 bad usage or input.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cuzk.h"
#include "supraseal_c2.h"

#define MAX_DUMPS 64
#define MAX_THREADS 64

/* ---- small helpers ---- */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char* fmt, const char* arg) {
    fprintf(stderr, "dropin_bench: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    exit(2);
}

static void* xmalloc(size_t n) {
    void* p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "dropin_bench: out of memory (%zu bytes)\n", n);
        exit(2);
    }
    return p;
}

/* read_all reads a whole file, or returns NULL (errno set). */
static uint8_t* read_all(const char* path, size_t* len) {
    FILE* f = fopen(path, "rb");
    if (!f) return NULL;
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        fclose(f);
        return NULL;
    }
    size_t n = (size_t)st.st_size;
    uint8_t* buf = xmalloc(n + 1);
    if (n && fread(buf, 1, n, f) != n) {
        fclose(f);
        free(buf);
        errno = EIO;
        return NULL;
    }
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}

static uint8_t* read_in(const char* dir, const char* name, size_t* len) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    uint8_t* b = read_all(path, len);
    if (!b) die("cannot read %s", path);
    return b;
}

/* json_size reads the integer "key": value of a dump's assignment.json. */
static size_t json_size(const char* js, const char* dir, const char* key) {
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char* at = strstr(js, pat);
    if (!at) {
        fprintf(stderr, "dropin_bench: %s/assignment.json has no %s\n", dir, key);
        exit(2);
    }
    return (size_t)strtoull(at + strlen(pat), NULL, 10);
}

static int cmp_double(const void* x, const void* y) {
    double a = *(const double*)x, b = *(const double*)y;
    return (a > b) - (a < b);
}

/* stats: min and median of v[from:n] (all of v when from >= n). */
static void stats(const double* v, int n, int from, double* mn, double* med) {
    if (from >= n) from = 0;
    int m = n - from;
    double* s = xmalloc(sizeof(double) * (size_t)m);
    memcpy(s, v + from, sizeof(double) * (size_t)m);
    qsort(s, (size_t)m, sizeof(double), cmp_double);
    *mn = s[0];
    *med = m % 2 ? s[m / 2] : 0.5 * (s[m / 2 - 1] + s[m / 2]);
    free(s);
}

static long peak_rss_kib(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss; /* KiB on Linux */
}

static int rust_ok(RustError e, const char* what) {
    if (e.code == 0) return 1;
    fprintf(stderr, "dropin_bench: %s: code %d: %s\n", what, e.code, e.message ? e.message : "(no message)");
    free(e.message);
    return 0;
}

/* ---- one dump-assignment directory ---- */

typedef struct dump {
    const char* dir;
    uint8_t *a, *b, *c, *inputs, *aux;
    uint64_t *a_aux, *b_inp, *b_aux;
    size_t abc, ninputs, naux;
    size_t a_aux_pop, b_inp_pop, b_aux_pop;
} dump;

static void load_dump(dump* d, const char* dir) {
    size_t len;
    memset(d, 0, sizeof *d);
    d->dir = dir;
    char* js = (char*)read_in(dir, "assignment.json", &len);
    d->abc = json_size(js, dir, "abc_size");
    d->ninputs = json_size(js, dir, "num_inputs");
    d->naux = json_size(js, dir, "num_aux");
    d->a_aux_pop = json_size(js, dir, "a_aux_popcount");
    d->b_inp_pop = json_size(js, dir, "b_inp_popcount");
    d->b_aux_pop = json_size(js, dir, "b_aux_popcount");
    free(js);
    struct {
        const char* name;
        uint8_t** dst;
        size_t want;
    } files[] = {
        {"a.bin", &d->a, 32 * d->abc},
        {"b.bin", &d->b, 32 * d->abc},
        {"c.bin", &d->c, 32 * d->abc},
        {"inputs.bin", &d->inputs, 32 * d->ninputs},
        {"aux.bin", &d->aux, 32 * d->naux},
        {"a_aux_density.bin", (uint8_t**)&d->a_aux, 8 * ((d->naux + 63) / 64)},
        {"b_inp_density.bin", (uint8_t**)&d->b_inp, 8 * ((d->ninputs + 63) / 64)},
        {"b_aux_density.bin", (uint8_t**)&d->b_aux, 8 * ((d->naux + 63) / 64)},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        *files[i].dst = read_in(dir, files[i].name, &len);
        if (len != files[i].want) {
            fprintf(stderr, "dropin_bench: %s/%s: %zu bytes, assignment.json implies %zu\n", dir,
                    files[i].name, len, files[i].want);
            exit(2);
        }
    }
    if (d->ninputs < 1) die("%s: no inputs (ONE is missing)", dir);
}

/* Bytes one circuit of a call needs: a, b, c, inputs, aux. */
static size_t circuit_bytes(const dump* d) { return 32 * (3 * d->abc + d->ninputs + d->naux); }

/* ---- GPU utilisation through NVML, loaded at run time ---- */

typedef struct nvml_util {
    unsigned int gpu, memory;
} nvml_util;
typedef void* nvml_device;
typedef struct nvml_memory {
    unsigned long long total, free, used;
} nvml_memory;
/* nvmlProcessInfo_v2_t's layout, which _v3 takes too */
typedef struct nvml_process {
    unsigned int pid;
    unsigned long long used;
    unsigned int gpu_instance, compute_instance;
} nvml_process;

static struct {
    void* lib;
    int (*init)(void);
    int (*count)(unsigned int*);
    int (*handle)(unsigned int, nvml_device*);
    int (*util)(nvml_device, nvml_util*);
    int (*mem)(nvml_device, nvml_memory*);
    int (*procs)(nvml_device, unsigned int*, nvml_process*);
    int (*shutdown)(void);
    nvml_device dev[64];
    unsigned int ndev;
} nvml;

static int nvml_open(int gpu_index) {
    nvml.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nvml.lib) return 0;
    *(void**)&nvml.init = dlsym(nvml.lib, "nvmlInit_v2");
    *(void**)&nvml.count = dlsym(nvml.lib, "nvmlDeviceGetCount_v2");
    *(void**)&nvml.handle = dlsym(nvml.lib, "nvmlDeviceGetHandleByIndex_v2");
    *(void**)&nvml.util = dlsym(nvml.lib, "nvmlDeviceGetUtilizationRates");
    *(void**)&nvml.shutdown = dlsym(nvml.lib, "nvmlShutdown");
    *(void**)&nvml.mem = dlsym(nvml.lib, "nvmlDeviceGetMemoryInfo"); /* optional */
    *(void**)&nvml.procs = dlsym(nvml.lib, "nvmlDeviceGetComputeRunningProcesses_v3"); /* optional */
    if (!nvml.procs) *(void**)&nvml.procs = dlsym(nvml.lib, "nvmlDeviceGetComputeRunningProcesses_v2");
    unsigned int n = 0;
    if (!nvml.init || !nvml.count || !nvml.handle || !nvml.util || !nvml.shutdown || nvml.init() != 0)
        goto fail;
    if (nvml.count(&n) != 0 || n == 0) {
        nvml.shutdown();
        goto fail;
    }
    /* NVML's order is PCI order, CUDA's the fastest first by default: the
     * same on single-GPU and uniform hosts, which is what this targets. */
    for (unsigned int i = 0; i < n && nvml.ndev < 64; i++) {
        if (gpu_index >= 0 && (unsigned int)gpu_index != i) continue;
        if (nvml.handle(i, &nvml.dev[nvml.ndev]) == 0) nvml.ndev++;
    }
    if (nvml.ndev > 0) return 1;
    nvml.shutdown();
fail:
    dlclose(nvml.lib);
    nvml.lib = NULL;
    return 0;
}

/* vram_used_gib is the device memory in use on the watched GPUs (all
 * processes), or -1 without NVML: the SRS's resident points show as its
 * growth, and dropping the last handle of an evicted SRS must give it back. */
static double vram_used_gib(void) {
    if (!nvml.lib || !nvml.mem) return -1;
    double used = 0;
    for (unsigned int i = 0; i < nvml.ndev; i++) {
        nvml_memory m;
        if (nvml.mem(nvml.dev[i], &m) != 0) return -1;
        used += (double)m.used;
    }
    return used / (1024.0 * 1024.0 * 1024.0);
}

/* vram_process_gib is the device memory compute processes hold on the
 * watched GPUs (GiB), or -1 without NVML's process list: this process's
 * alone (*own = 1), or, when NVML lists no process by this pid (another
 * pid namespace), every compute process's (*own = 0). Unlike the
 * device's used memory, it leaves out what was in use before any
 * process (the driver's own). */
static double vram_process_gib(int* own) {
    if (!nvml.lib || !nvml.procs) return -1;
    const unsigned int me = (unsigned int)getpid();
    double mine = 0, all = 0;
    int found = 0;
    for (unsigned int i = 0; i < nvml.ndev; i++) {
        nvml_process p[128];
        unsigned int n = 128;
        if (nvml.procs(nvml.dev[i], &n, p) != 0) return -1;
        for (unsigned int k = 0; k < n && k < 128; k++) {
            if (p[k].used == ~0ull) continue; /* not available */
            all += (double)p[k].used;
            if (p[k].pid == me) {
                mine += (double)p[k].used;
                found = 1;
            }
        }
    }
    *own = found;
    return (found ? mine : all) / (1024.0 * 1024.0 * 1024.0);
}

/* The most device memory in use seen by the sampler (GiB; -1: none), of
 * the whole device and of the process (vram_process_gib). */
static double g_vram_peak = -1, g_proc_peak = -1;
static int g_proc_own = 1;

/* json_numbers writes the numbers after each "key": in a JSON text, in
 * order (at most max; one per device for a device field), and returns how
 * many. */
static int json_numbers(const char* json, const char* key, double* out, int max) {
    char pat[96];
    int n = 0;
    snprintf(pat, sizeof pat, "\"%s\":", key);
    for (const char* p = json ? strstr(json, pat) : NULL; p && n < max; p = strstr(p + 1, pat))
        out[n++] = strtod(p + strlen(pat), NULL);
    return n;
}

/* json_number finds "key": in a JSON text and returns the number after it
 * (the largest when the key repeats: one per device), or -1. */
static double json_number(const char* json, const char* key) {
    double v[64], best = -1;
    int n = json_numbers(json, key, v, 64);
    for (int i = 0; i < n; i++)
        if (v[i] > best) best = v[i];
    return best;
}

/* json_sums writes, for each of nk keys, the sum of its numbers in a JSON
 * text (over every device for a device field; 0 when absent). */
static void json_sums(const char* json, const char* const* keys, int nk, double* out) {
    for (int k = 0; k < nk; k++) {
        double v[64];
        int n = json_numbers(json, keys[k], v, 64);
        out[k] = 0;
        for (int i = 0; i < n; i++) out[k] += v[i];
    }
}

/* The sampler: every 100 ms, the mean utilisation of the watched GPUs and
 * their memory in use (its peak). */
typedef struct sampler {
    pthread_t th;
    volatile int stop;
    double t0;
    int n, cap;
    double* t;
    double* v;
    double dev_sum[64]; /* per watched GPU: the sum of its samples */
    int dev_n[64];
} sampler;

static void* sample_loop(void* arg) {
    sampler* s = arg;
    const struct timespec tick = {0, 100 * 1000 * 1000};
    while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
        double sum = 0;
        unsigned int got = 0;
        for (unsigned int i = 0; i < nvml.ndev; i++) {
            nvml_util u;
            if (nvml.util(nvml.dev[i], &u) == 0) {
                sum += u.gpu;
                got++;
                s->dev_sum[i] += u.gpu;
                s->dev_n[i]++;
            }
        }
        double vram = vram_used_gib();
        if (vram > g_vram_peak) g_vram_peak = vram;
        int own = 1;
        double proc = vram_process_gib(&own);
        if (proc > g_proc_peak) {
            g_proc_peak = proc;
            g_proc_own = own;
        }
        if (got && s->n < s->cap) {
            s->t[s->n] = now() - s->t0;
            s->v[s->n] = sum / got;
            s->n++;
        }
        nanosleep(&tick, NULL);
    }
    return NULL;
}

static void sampler_start(sampler* s) {
    memset(s, 0, sizeof *s);
    if (!nvml.lib) return;
    s->cap = 1 << 20;
    s->t = xmalloc(sizeof(double) * (size_t)s->cap);
    s->v = xmalloc(sizeof(double) * (size_t)s->cap);
    s->t0 = now();
    if (pthread_create(&s->th, NULL, sample_loop, s) != 0) s->cap = 0;
}

static void sampler_stop(sampler* s) {
    if (!nvml.lib || s->cap == 0) return;
    __atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
    pthread_join(s->th, NULL);
}

/* ---- the calls ---- */

typedef struct mode_result {
    const char* name;
    int ran;
    double* call;     /* per call: sync: the call; async: start -> finalize returns */
    int ncall, cold;  /* entries of call (calls x threads), the first cold ones (one a thread) */
    double dev_util[64]; /* each watched GPU's mean utilisation over the mode (< 0: n/a) */
    double* start;    /* async: start's own time */
    double first;     /* time to first proof */
    double wall;      /* all calls */
    groth16_proof* proofs; /* calls x circuits */
    double util_mean; /* < 0: n/a */
    double util_calls; /* mean over the warm calls' own windows; < 0: n/a */
    double *win_from, *win_to; /* each call's window, on the sampler's clock */
    char* util_secs;
    long rss_kib;
    int failed;
} mode_result;

typedef struct bench {
    dump dumps[MAX_DUMPS];
    int ndumps;
    size_t circuits;
    int calls, depth, gpu_index;
    int keep_abc;   /* async: a, b, c freed after finalize (--keep-abc) */
    int shared_abc; /* every circuit passes its dump's own a, b, c (--shared-abc) */
    int threads;
    int gpus[MAX_THREADS]; /* thread t's gpu_index */
    unsigned long seed;
    SRS srs;
    fr_t *r, *s; /* the fixed randomness, per circuit */
} bench;

static const dump* dump_of(const bench* b, size_t i) { return &b->dumps[i % (size_t)b->ndumps]; }

/* One call's host buffers: what bellperson's synthesis hands over. */
typedef struct call_bufs {
    Assignment* x;
    uint8_t** abc; /* 3 per circuit */
    fr_t *r, *s;
} call_bufs;

static void call_prepare(const bench* b, call_bufs* cb) {
    size_t n = b->circuits;
    cb->x = xmalloc(sizeof(Assignment) * n);
    cb->abc = xmalloc(sizeof(uint8_t*) * 3 * n);
    cb->r = xmalloc(sizeof(fr_t) * n);
    cb->s = xmalloc(sizeof(fr_t) * n);
    memcpy(cb->r, b->r, sizeof(fr_t) * n);
    memcpy(cb->s, b->s, sizeof(fr_t) * n);
    for (size_t i = 0; i < n; i++) {
        const dump* d = dump_of(b, i);
        const uint8_t* src[3] = {d->a, d->b, d->c};
        for (int k = 0; k < 3; k++) {
            if (b->shared_abc) { /* freed as NULL by call_release_abc */
                cb->abc[3 * i + k] = NULL;
                continue;
            }
            cb->abc[3 * i + k] = xmalloc(32 * d->abc);
            memcpy(cb->abc[3 * i + k], src[k], 32 * d->abc);
        }
        Assignment* x = &cb->x[i];
        x->a_aux_density = d->a_aux;
        x->a_aux_bit_len = d->naux;
        x->a_aux_popcount = d->a_aux_pop;
        x->b_inp_density = d->b_inp;
        x->b_inp_bit_len = d->ninputs;
        x->b_inp_popcount = d->b_inp_pop;
        x->b_aux_density = d->b_aux;
        x->b_aux_bit_len = d->naux;
        x->b_aux_popcount = d->b_aux_pop;
        x->a = (const fr_t*)(b->shared_abc ? src[0] : cb->abc[3 * i]);
        x->b = (const fr_t*)(b->shared_abc ? src[1] : cb->abc[3 * i + 1]);
        x->c = (const fr_t*)(b->shared_abc ? src[2] : cb->abc[3 * i + 2]);
        x->abc_size = d->abc;
        x->inp_assignment_data = (const fr_t*)d->inputs;
        x->inp_assignment_size = d->ninputs;
        x->aux_assignment_data = (const fr_t*)d->aux;
        x->aux_assignment_size = d->naux;
    }
}

/* The buffers bellperson drops once start returns: r_s, s_s, a, b, c. */
static void call_release_abc(const bench* b, call_bufs* cb) {
    for (size_t i = 0; i < 3 * b->circuits; i++) {
        free(cb->abc[i]);
        cb->abc[i] = NULL;
    }
    free(cb->r);
    free(cb->s);
    cb->r = cb->s = NULL;
}

/* The rest (the Assignment array; the dumps own inputs, aux, bitmaps). */
static void call_release(const bench* b, call_bufs* cb) {
    call_release_abc(b, cb);
    free(cb->abc);
    free(cb->x);
}

static void util_summary(mode_result* m, const sampler* s) {
    m->util_mean = -1;
    m->util_calls = -1;
    m->util_secs = NULL;
    for (unsigned int i = 0; i < 64; i++) m->dev_util[i] = i < nvml.ndev && s->dev_n[i] ? s->dev_sum[i] / s->dev_n[i] : -1;
    if (!nvml.lib || s->n == 0) {
        free(s->t);
        free(s->v);
        return;
    }
    double sum = 0;
    for (int i = 0; i < s->n; i++) sum += s->v[i];
    m->util_mean = sum / s->n;
    /* The GPU's busy share inside the warm calls (the bench's own copies
     * between calls excluded): samples taken within a call's window. */
    double in = 0;
    int nin = 0;
    for (int k = m->ncall > m->cold ? m->cold : 0; k < m->ncall; k++)
        for (int i = 0; i < s->n; i++)
            if (s->t[i] > m->win_from[k] && s->t[i] <= m->win_to[k]) {
                in += s->v[i];
                nin++;
            }
    if (nin) m->util_calls = in / nin;
    int secs = (int)s->t[s->n - 1] + 1;
    m->util_secs = xmalloc((size_t)secs * 5 + 1);
    char* p = m->util_secs;
    for (int sec = 0, i = 0; sec < secs; sec++) {
        double acc = 0;
        int k = 0;
        for (; i < s->n && s->t[i] < sec + 1; i++, k++) acc += s->v[i];
        p += sprintf(p, "%s%d", sec ? " " : "", k ? (int)(acc / k + 0.5) : 0);
    }
    free(s->t);
    free(s->v);
}

/* One host thread of the sync mode: K calls with its gpu_index and, with
 * several threads, its own gpu_mtx; call k of thread t is entry
 * k * threads + t of the mode's calls and proofs. */
typedef struct sync_thread {
    pthread_t th;
    bench* b;
    mode_result* m;
    const sampler* smp;
    int t;
    void* mtx;
    int failed;
} sync_thread;

static void* sync_calls(void* arg) {
    sync_thread* w = arg;
    bench* b = w->b;
    mode_result* m = w->m;
    size_t n = b->circuits;
    int T = b->threads;
    for (int k = 0; k < b->calls && !w->failed; k++) {
        int at = k * T + w->t;
        call_bufs cb;
        call_prepare(b, &cb);
        double t0 = now();
        RustError e = generate_groth16_proofs_c(cb.x, n, cb.r, cb.s, m->proofs + (size_t)at * n, &b->srs, w->mtx,
                                                b->gpus[w->t]);
        m->call[at] = now() - t0;
        m->win_from[at] = t0 - w->smp->t0;
        m->win_to[at] = t0 + m->call[at] - w->smp->t0;
        if (!rust_ok(e, "generate_groth16_proofs_c")) w->failed = 1;
        call_release(b, &cb);
        if (T > 1)
            fprintf(stderr, "sync call %d, thread %d (gpu_index %d): %.3f s\n", k, w->t, b->gpus[w->t], m->call[at]);
        else
            fprintf(stderr, "sync call %d: %.3f s\n", k, m->call[at]);
    }
    return NULL;
}

static void run_sync(bench* b, mode_result* m) {
    int T = b->threads;
    sync_thread w[MAX_THREADS] = {0};
    sampler smp;
    sampler_start(&smp);
    double t_all = now();
    int started = 0;
    for (int t = 0; t < T; t++) {
        w[t] = (sync_thread){.b = b, .m = m, .smp = &smp, .t = t, .mtx = T > 1 ? create_gpu_mutex() : NULL};
        if (T == 1) {
            sync_calls(&w[t]);
            started = 1;
        } else if (pthread_create(&w[t].th, NULL, sync_calls, &w[t]) == 0) {
            started++;
        } else {
            w[t].failed = 1;
            break;
        }
    }
    for (int t = 0; T > 1 && t < started; t++) pthread_join(w[t].th, NULL);
    m->wall = now() - t_all;
    m->first = -1;
    for (int t = 0; t < T; t++) {
        m->failed |= w[t].failed || (T > 1 && t >= started);
        if (w[t].mtx) destroy_gpu_mutex(w[t].mtx);
        if (!w[t].failed && (m->first < 0 || m->call[t] < m->first)) m->first = m->call[t];
    }
    sampler_stop(&smp);
    util_summary(m, &smp);
    m->rss_kib = peak_rss_kib();
}

static void run_async(bench* b, mode_result* m) {
    size_t n = b->circuits;
    int depth = b->depth;
    void** pending = calloc((size_t)b->calls, sizeof(void*));
    call_bufs* cbs = calloc((size_t)b->calls, sizeof(call_bufs));
    double* t0 = calloc((size_t)b->calls, sizeof(double));
    int next_fin = 0;
    sampler smp;
    sampler_start(&smp);
    double t_all = now();
    for (int k = 0; k <= b->calls && !m->failed; k++) {
        if (k < b->calls) {
            call_prepare(b, &cbs[k]);
            t0[k] = now();
            RustError e = generate_groth16_proofs_start_c(cbs[k].x, n, cbs[k].r, cbs[k].s, &b->srs, NULL,
                                                          b->gpu_index, &pending[k]);
            m->start[k] = now() - t0[k];
            /* bellperson drops r_s, s_s and a, b, c here (--keep-abc: at
             * finalize, call_release). */
            if (!b->keep_abc) call_release_abc(b, &cbs[k]);
            if (!rust_ok(e, "generate_groth16_proofs_start_c")) {
                pending[k] = NULL;
                call_release(b, &cbs[k]);
                m->failed = 1;
                break;
            }
        }
        /* Finalize while more than depth-1 calls are pending (all at the end). */
        while (next_fin <= k && next_fin < b->calls && (k - next_fin + 1 >= depth || k == b->calls)) {
            int f = next_fin++;
            RustError e = finalize_groth16_proof_c(pending[f], m->proofs + (size_t)f * n);
            pending[f] = NULL;
            m->call[f] = now() - t0[f];
            m->win_from[f] = t0[f] - smp.t0;
            m->win_to[f] = t0[f] + m->call[f] - smp.t0;
            if (f == 0) m->first = m->call[0];
            if (!rust_ok(e, "finalize_groth16_proof_c")) m->failed = 1;
            call_release(b, &cbs[f]);
            fprintf(stderr, "async call %d: start %.3f s, to finalize %.3f s\n", f, m->start[f], m->call[f]);
        }
    }
    for (int k = 0; k < b->calls; k++)
        if (pending[k]) {
            destroy_pending_proof(pending[k]);
            call_release(b, &cbs[k]);
        }
    m->wall = now() - t_all;
    sampler_stop(&smp);
    util_summary(m, &smp);
    m->rss_kib = peak_rss_kib();
    free(pending);
    free(cbs);
    free(t0);
}

/* ---- verification ---- */

static const char* verify_id = "dropin-bench";

/* verify_call checks one call's N proofs with cuzk_verify. */
static int verify_call(const bench* b, const groth16_proof* proofs) {
    size_t n = b->circuits;
    uint8_t* enc = xmalloc(192 * n);
    int ok = 1;
    cuzk_error e = cuzk_proof_compress(proofs, n, enc);
    if (e.code) {
        fprintf(stderr, "dropin_bench: cuzk_proof_compress: %s\n", e.message);
        cuzk_free(e.message);
        free(enc);
        return 0;
    }
    for (size_t i = 0; i < n && ok; i++) {
        const dump* d = dump_of(b, i);
        e = cuzk_verify(verify_id, enc + 192 * i, 192, d->inputs + 32, d->ninputs - 1, 0);
        if (e.code) {
            fprintf(stderr, "dropin_bench: circuit %zu (%s): cuzk_verify: code %d: %s\n", i, d->dir, e.code,
                    e.message ? e.message : "");
            cuzk_free(e.message);
            ok = 0;
        }
    }
    free(enc);
    return ok;
}

/* ---- report ---- */

static void print_row(const char* label, const mode_result* m, int nm, const char* unit,
                      double (*get)(const mode_result*, const bench*), const bench* b) {
    printf("%-32s", label);
    for (int i = 0; i < nm; i++) {
        double v = get(&m[i], b);
        if (v < 0)
            printf(" %12s", "-");
        else
            printf(" %12.3f", v);
    }
    printf("  %s\n", unit);
}

static double g_cold(const mode_result* m, const bench* b) { (void)b; return m->call[0]; }
static double g_min(const mode_result* m, const bench* b) {
    (void)b;
    double mn, med;
    stats(m->call, m->ncall, m->cold, &mn, &med);
    return mn;
}
static double g_med(const mode_result* m, const bench* b) {
    (void)b;
    double mn, med;
    stats(m->call, m->ncall, m->cold, &mn, &med);
    return med;
}
static double g_circ_cold(const mode_result* m, const bench* b) { return m->call[0] / (double)b->circuits; }
static double g_circ_min(const mode_result* m, const bench* b) { return g_min(m, b) / (double)b->circuits; }
static double g_circ_med(const mode_result* m, const bench* b) { return g_med(m, b) / (double)b->circuits; }
static double g_first(const mode_result* m, const bench* b) { (void)b; return m->first; }
static double g_start_med(const mode_result* m, const bench* b) {
    if (!m->start) return -1;
    double mn, med;
    stats(m->start, b->calls, 1, &mn, &med);
    return med;
}
static double g_wall(const mode_result* m, const bench* b) { (void)b; return m->wall; }
static double g_tput(const mode_result* m, const bench* b) {
    return m->wall > 0 ? (double)b->circuits * m->ncall / m->wall : -1;
}
static double g_util(const mode_result* m, const bench* b) { (void)b; return m->util_mean; }
static double g_util_calls(const mode_result* m, const bench* b) { (void)b; return m->util_calls; }
static double g_rss(const mode_result* m, const bench* b) { (void)b; return (double)m->rss_kib / (1024.0 * 1024.0); }

static void metric(const char* mode, const char* name, double v, const char* unit) {
    if (v < 0)
        printf("metric %s%s%s n/a %s\n", mode ? mode : "", mode ? "." : "", name, unit);
    else
        printf("metric %s%s%s %.6g %s\n", mode ? mode : "", mode ? "." : "", name, v, unit);
}

/* gib_rows prints n table rows of GiB (labels[i]: values[i]), then their
 * metric lines (names[i]), in that order. */
static void gib_rows(int n, const char* const* labels, const char* const* names, const double* values) {
    for (int i = 0; i < n; i++) printf("%-32s %12.3f  GiB\n", labels[i], values[i]);
    for (int i = 0; i < n; i++) metric(NULL, names[i], values[i], "GiB");
}

/* ---- main ---- */

static void usage(void) {
    fprintf(stderr,
            "usage: dropin_bench --params FILE --dump DIR [--dump DIR ...] [--circuits N] [--calls K]\n"
            "                    [--mode sync|async|both] [--depth D] [--gpu-index I] [--seed S]\n"
            "                    [--threads T] [--gpus I,J,...]\n"
            "                    [--config TEXT|FILE] [--no-verify] [--keep-abc] [--shared-abc] [--unlink-params]\n"
            "                    [--srs-only] [--proofs-out F]\n"
            "(the comment at the top of tests/dropin/dropin_bench.c explains each)\n");
    exit(2);
}

static long num_arg(const char* flag, const char* v, long lo, long hi) {
    char* end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end || x < lo || x > hi) die("bad value for %s", flag);
    return x;
}

int main(int argc, char** argv) {
    static bench b;
    const char* params = NULL;
    const char* config = NULL;
    const char* proofs_out = NULL;
    const char* mode = "both";
    const char* dirs[MAX_DUMPS];
    int srs_only = 0, no_verify = 0, unlink_params = 0;
    long circuits = 0;
    const char* gpus = NULL;
    b.calls = 3;
    b.depth = 1;
    b.gpu_index = -1;
    b.threads = 1;
    for (int i = 1; i < argc; i++) {
        const char* f = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(f, "--srs-only")) {
            srs_only = 1;
            continue;
        }
        if (!strcmp(f, "--no-verify")) {
            no_verify = 1;
            continue;
        }
        if (!strcmp(f, "--keep-abc")) {
            b.keep_abc = 1;
            continue;
        }
        if (!strcmp(f, "--shared-abc")) {
            b.shared_abc = 1;
            continue;
        }
        if (!strcmp(f, "--unlink-params")) {
            unlink_params = 1;
            continue;
        }
        if (!strcmp(f, "-h") || !strcmp(f, "--help")) usage();
        if (!v) usage();
        i++;
        if (!strcmp(f, "--params"))
            params = v;
        else if (!strcmp(f, "--dump")) {
            if (b.ndumps == MAX_DUMPS) die("at most %s --dump", "64");
            dirs[b.ndumps++] = v;
        } else if (!strcmp(f, "--circuits"))
            circuits = num_arg(f, v, 1, 1 << 20);
        else if (!strcmp(f, "--calls"))
            b.calls = (int)num_arg(f, v, 1, 1 << 20);
        else if (!strcmp(f, "--depth"))
            b.depth = (int)num_arg(f, v, 1, 1 << 20);
        else if (!strcmp(f, "--gpu-index"))
            b.gpu_index = (int)num_arg(f, v, -1, 1 << 16);
        else if (!strcmp(f, "--threads"))
            b.threads = (int)num_arg(f, v, 1, MAX_THREADS);
        else if (!strcmp(f, "--gpus"))
            gpus = v;
        else if (!strcmp(f, "--seed"))
            b.seed = (unsigned long)num_arg(f, v, 0, 1L << 40);
        else if (!strcmp(f, "--mode"))
            mode = v;
        else if (!strcmp(f, "--config"))
            config = v;
        else if (!strcmp(f, "--proofs-out"))
            proofs_out = v;
        else
            die("unknown flag %s", f);
    }
    int do_sync = !strcmp(mode, "sync") || !strcmp(mode, "both");
    int do_async = !strcmp(mode, "async") || !strcmp(mode, "both");
    if (!do_sync && !do_async) die("--mode must be sync, async or both, not %s", mode);
    if (b.threads > 1 && do_async) die("--threads runs the sync calls: add --mode sync (%s given)", mode);
    for (int t = 0; t < b.threads; t++) b.gpus[t] = b.gpu_index;
    if (gpus) { /* "0,1": thread t's gpu_index */
        const char* p = gpus;
        for (int t = 0; t < b.threads; t++) {
            char* end;
            long g = strtol(p, &end, 10);
            if (end == p || g < -1 || g > (1 << 16) || (*end && *end != ',')) die("--gpus: want indexes like 0,1, not %s", gpus);
            b.gpus[t] = (int)g;
            if (!*end) {
                if (t + 1 < b.threads) die("--gpus: fewer indexes than --threads in %s", gpus);
                break;
            }
            p = end + 1;
        }
    }
    if (!params) usage();
    if (!srs_only && b.ndumps == 0) usage();
    if (unlink_params && !no_verify) die("--unlink-params: the verification reads the parameter file; add --no-verify%s", "");

    /* The configuration first: it decides how create_SRS checks the file. */
    if (config) {
        size_t len;
        char* text = (char*)read_all(config, &len);
        cuzk_error e = cuzk_config(text ? text : config);
        free(text);
        if (e.code) {
            fprintf(stderr, "dropin_bench: cuzk_config: code %d: %s\n", e.code, e.message);
            cuzk_free(e.message);
            return 2;
        }
    }

    struct stat st;
    if (stat(params, &st) != 0) die("cannot stat %s", params);
    double params_gib = (double)st.st_size / (1024.0 * 1024.0 * 1024.0);

    nvml_open(b.gpu_index); /* before create_SRS: its device memory is measured */
    double vram_before = vram_used_gib();
    double t0 = now();
    if (!rust_ok(create_SRS(&b.srs, params, true), "create_SRS")) return 1;
    double srs_s = now() - t0;
    long rss_srs = peak_rss_kib();
    if (unlink_params && unlink(params) != 0) die("cannot remove %s", params);
    if (srs_only) {
        printf("%-32s %12.3f  s\n", "create_SRS", srs_s);
        printf("%-32s %12.3f  GiB\n", "peak RSS", (double)rss_srs / (1024.0 * 1024.0));
        metric(NULL, "create_srs", srs_s, "s");
        metric(NULL, "peak_rss_after_srs", (double)rss_srs / (1024.0 * 1024.0), "GiB");
        drop_SRS(&b.srs);
        return 0;
    }

    for (int i = 0; i < b.ndumps; i++) load_dump(&b.dumps[i], dirs[i]);
    b.circuits = circuits ? (size_t)circuits : (size_t)b.ndumps;
    b.r = xmalloc(sizeof(fr_t) * b.circuits);
    b.s = xmalloc(sizeof(fr_t) * b.circuits);
    for (size_t i = 0; i < b.circuits; i++) {
        /* Any integer below the modulus is a valid Montgomery form. */
        memset(&b.r[i], 0, sizeof(fr_t));
        memset(&b.s[i], 0, sizeof(fr_t));
        b.r[i].limbs[0] = 1000 * (uint64_t)b.seed + 2 * i + 1;
        b.s[i].limbs[0] = 1000 * (uint64_t)b.seed + 2 * i + 2;
    }
    double dumps_gib = 0;
    for (int i = 0; i < b.ndumps; i++) {
        const dump* d = &b.dumps[i];
        dumps_gib += (double)(circuit_bytes(d) + 8 * ((d->ninputs + 63) / 64 + 2 * ((d->naux + 63) / 64)));
    }
    dumps_gib /= 1024.0 * 1024.0 * 1024.0;
    double need_gib = 0;
    for (size_t i = 0; i < b.circuits; i++) need_gib += (double)circuit_bytes(dump_of(&b, i));
    need_gib /= 1024.0 * 1024.0 * 1024.0;
    int have_nvml = nvml.lib != NULL;

    mode_result modes[2];
    int nm = 0;
    const char* names[2] = {"sync", "async"};
    int want[2] = {do_sync, do_async};
    for (int w = 0; w < 2; w++) {
        if (!want[w]) continue;
        mode_result* m = &modes[nm++];
        memset(m, 0, sizeof *m);
        m->name = names[w];
        int T = w == 0 ? b.threads : 1;
        m->ncall = b.calls * T;
        m->cold = T;
        m->call = calloc((size_t)m->ncall, sizeof(double));
        m->proofs = calloc((size_t)m->ncall * b.circuits, sizeof(groth16_proof));
        m->win_from = calloc((size_t)m->ncall, sizeof(double));
        m->win_to = calloc((size_t)m->ncall, sizeof(double));
        if (w == 0)
            run_sync(&b, m);
        else {
            m->start = calloc((size_t)b.calls, sizeof(double));
            run_async(&b, m);
        }
        m->ran = 1;
    }
    /* Out of the cache too, so that its memory can go before verification. */
    double vram_proving = vram_used_gib();
    /* cuzk's own count of what it held on the device, against its cap */
    char* status = cuzk_status_json();
    double held_peak = json_number(status, "device_memory_peak_bytes") / (1024.0 * 1024.0 * 1024.0);
    double held_cap = json_number(status, "device_memory_cap_bytes") / (1024.0 * 1024.0 * 1024.0);
    double streamed = json_number(status, "device_streamed_bytes") / (1024.0 * 1024.0 * 1024.0);
    /* host memory: the resolved budget, the most reserved in it by the
     * partitions at once, the loaded parameters' host bytes held in it,
     * and the most page-locked at once by the buffer pool */
    static const double gib = 1024.0 * 1024.0 * 1024.0;
    double budget = json_number(status, "budget_bytes") / gib;
    double reserved_peak = json_number(status, "peak_reserved_bytes") / gib;
    double params_held = json_number(status, "parameters_bytes") / gib;
    double locked_peak = json_number(status, "peak_pinned_bytes") / gib;
    double relieved = json_number(status, "host_pressure_freed_bytes") / gib; /* idle buffers given back */
    double mem_waits = json_number(status, "host_memory_waits");
    double copy_s = json_number(status, "device_streamed_copy_seconds");
    double read_s = json_number(status, "device_streamed_file_read_seconds"); /* before those copies */
    double mapped = json_number(status, "device_streamed_file_mapped_bytes") / gib; /* copied from the file's pages */
    double dev_busy[64]; /* the engine's busy seconds per device, in its status order */
    int ndev_busy = json_numbers(status, "busy_seconds", dev_busy, 64);
    /* partitions whose a, b, c went up ahead of h: whole, a alone, not at all (every device) */
    static const char* const pre_keys[3] = {"device_prefetch_abc", "device_prefetch_a_alone", "device_prefetch_refused"};
    double pre[3];
    json_sums(status, pre_keys, 3, pre);
    /* chunks streamed, and first chunks staged ahead of their MSM by group (every device) */
    static const char* const chunk_keys[3] = {"device_streamed_chunks", "device_staged_chunks_g1",
                                              "device_staged_chunks_g2"};
    double chunks[3];
    json_sums(status, chunk_keys, 3, chunks);
    /* the count each device's last a, b, c prefetch was decided on (GiB;
     * the three fields are read by device only when every device that
     * reports one reports all three: zeros are left out of the status) */
    double last[3][64];
    static const char* const last_keys[3] = {"device_prefetch_last_held_bytes", "device_prefetch_last_pool_bytes",
                                             "device_prefetch_last_query_bytes"};
    int nlast[3];
    for (int k = 0; k < 3; k++) {
        nlast[k] = json_numbers(status, last_keys[k], last[k], 64);
        for (int i = 0; i < nlast[k]; i++) last[k][i] /= 1024.0 * 1024.0 * 1024.0;
    }
    cuzk_free(status);
    evict_SRS(&b.srs);
    drop_SRS(&b.srs);
    double vram_dropped = vram_used_gib();

    /* Verification, after the timed work. */
    int bad = 0;
    for (int i = 0; i < nm; i++) bad |= modes[i].failed;
    const char* verdict = "skipped (--no-verify)";
    if (!bad && !no_verify) {
        cuzk_error e = cuzk_load_params(verify_id, params, CUZK_FLAG_TRUSTED_PARAMS);
        if (e.code) {
            fprintf(stderr, "dropin_bench: cuzk_load_params for verification: code %d: %s\n", e.code, e.message);
            cuzk_free(e.message);
            bad = 1;
        }
        for (int i = 0; i < nm && !bad; i++)
            for (int k = 0; k < modes[i].ncall && !bad; k++)
                if (!verify_call(&b, modes[i].proofs + (size_t)k * b.circuits)) {
                    fprintf(stderr, "dropin_bench: %s call %d: a proof does not verify\n", modes[i].name, k);
                    bad = 1;
                }
        verdict = bad ? "FAILED" : "all verified";
    }
    /* With fixed r, s per circuit index, every call and mode gives the same bytes. */
    size_t ndiff = 0;
    if (!bad)
        for (int i = 0; i < nm; i++)
            for (int k = 0; k < modes[i].ncall; k++)
                for (size_t c = 0; c < b.circuits; c++)
                    if (memcmp(&modes[i].proofs[(size_t)k * b.circuits + c], &modes[0].proofs[c],
                               sizeof(groth16_proof)) != 0) {
                        if (ndiff++ < 8)
                            fprintf(stderr, "dropin_bench: %s call %d circuit %zu differs from sync call 0's\n",
                                    modes[i].name, k, c);
                    }
    if (ndiff) {
        fprintf(stderr, "dropin_bench: %zu proof(s) differ from the first call's with the same r, s\n", ndiff);
        bad = 1;
    }
    const char* same = ndiff ? "no" : (bad ? "not compared" : "yes");
    /* The first call's proofs, raw (384 bytes each), for a comparison
     * across processes: the GPU's against the CPU backend's. */
    if (proofs_out) {
        FILE* f = fopen(proofs_out, "wb");
        if (!f || fwrite(modes[0].proofs, sizeof(groth16_proof), b.circuits, f) != b.circuits || fclose(f) != 0)
            die("cannot write %s", proofs_out);
    }

    /* The table. */
    const dump* d0 = &b.dumps[0];
    printf("drop-in bench: %zu circuit(s) a call (%d dump(s); first: %zu rows, %zu inputs, %zu aux), %d call(s)"
           " a mode, async depth %d, gpu_index %d",
           b.circuits, b.ndumps, d0->abc, d0->ninputs, d0->naux, b.calls, b.depth, b.gpu_index);
    if (b.threads > 1) {
        printf("; %d sync threads, each its own gpu_mtx, gpu_index", b.threads);
        for (int t = 0; t < b.threads; t++) printf("%s%d", t ? "," : " ", b.gpus[t]);
    }
    printf("\n");
    printf("%-32s %12.3f  s\n", "create_SRS", srs_s);
    printf("%-32s", "");
    for (int i = 0; i < nm; i++) printf(" %12s", modes[i].name);
    printf("\n");
    print_row("call, cold (first)", modes, nm, "s", g_cold, &b);
    print_row("call, min (warm)", modes, nm, "s", g_min, &b);
    print_row("call, median (warm)", modes, nm, "s", g_med, &b);
    print_row("circuit, cold", modes, nm, "s", g_circ_cold, &b);
    print_row("circuit, min (warm)", modes, nm, "s", g_circ_min, &b);
    print_row("circuit, median (warm)", modes, nm, "s", g_circ_med, &b);
    print_row("time to first proof", modes, nm, "s", g_first, &b);
    print_row("start returns, median (warm)", modes, nm, "s", g_start_med, &b);
    print_row("all calls, wall", modes, nm, "s", g_wall, &b);
    print_row("throughput", modes, nm, "circuits/s", g_tput, &b);
    if (have_nvml) {
        print_row("GPU utilisation, mean", modes, nm, "%", g_util, &b);
        print_row("GPU busy in warm calls", modes, nm, "%", g_util_calls, &b);
        for (unsigned int d = 0; nvml.ndev > 1 && d < nvml.ndev; d++) {
            printf("  GPU %-2u utilisation, mean       ", d);
            for (int i = 0; i < nm; i++) printf(" %12.3f", modes[i].dev_util[d]);
            printf("  %%\n");
            for (int i = 0; i < nm; i++) {
                char name[32];
                snprintf(name, sizeof name, "gpu%u_util_mean", d);
                metric(modes[i].name, name, modes[i].dev_util[d], "%");
            }
        }
    } else
        printf("%-32s %12s  (no NVML)\n", "GPU utilisation, mean", "n/a");
    print_row("peak RSS after the mode", modes, nm, "GiB", g_rss, &b);
    printf("%-32s %12.3f  GiB\n", "peak RSS after create_SRS", (double)rss_srs / (1024.0 * 1024.0));
    printf("%-32s %12.3f  GiB\n", "params file", params_gib);
    printf("%-32s %12.3f  GiB\n", "a,b,c,inputs,aux x circuits", need_gib);
    printf("%-32s %12.3f  GiB\n", "dumps held by the bench", dumps_gib);
    if (vram_before >= 0) {
        gib_rows(3, (const char* const[]){"device memory used: before", "  after the calls", "  after the SRS is dropped"},
                 (const char* const[]){"vram_before", "vram_after_calls", "vram_after_drop"},
                 (const double[]){vram_before, vram_proving, vram_dropped});
        printf("%-32s %12.3f  GiB\n", "  peak sampled during the calls", g_vram_peak);
        metric(NULL, "vram_peak_sampled", g_vram_peak, "GiB");
    }
    if (g_proc_peak >= 0) {
        printf("%-32s %12.3f  GiB (%s)\n", "  of it held by processes, peak", g_proc_peak,
               g_proc_own ? "this process" : "every compute process: NVML lists no process by this pid");
        metric(NULL, "vram_process_peak", g_proc_peak, "GiB");
    }
    if (held_peak >= 0) {
        printf("%-32s %12.3f  GiB (cap %.3f GiB; 0: none)\n", "device memory, cuzk's count: peak", held_peak,
               held_cap > 0 ? held_cap : 0);
        metric(NULL, "device_memory_peak", held_peak, "GiB");
        metric(NULL, "device_memory_cap", held_cap > 0 ? held_cap : 0, "GiB");
    }
    if (budget > 0) {
        gib_rows(5,
                 (const char* const[]){"host memory budget (resolved)", "  peak reserved by partitions",
                                       "  parameters held in it", "  peak page-locked (pool)",
                                       "  idle buffers freed, host short"},
                 (const char* const[]){"memory_budget", "peak_reserved", "params_held", "peak_page_locked",
                                       "host_pressure_freed"},
                 (const double[]){budget, reserved_peak, params_held, locked_peak, relieved > 0 ? relieved : 0});
        printf("%-32s %12.0f\n", "partitions waiting for host mem", mem_waits > 0 ? mem_waits : 0);
        metric(NULL, "host_memory_waits", mem_waits > 0 ? mem_waits : 0, "partitions");
    }
    if (streamed > 0) { /* point sets streamed under the cap, every partition of every mode */
        double parts = 0;
        for (int i = 0; i < nm; i++) parts += (double)modes[i].ncall * b.circuits;
        printf("%-32s %12.3f  GiB a partition (%.1f GiB in all)\n", "points streamed to the device", streamed / parts,
               streamed);
        metric(NULL, "streamed_per_partition", streamed / parts, "GiB");
        if (copy_s > 0) {
            printf("%-32s %12.1f  GB/s (copies %.2f s in all)\n", "  achieved copy bandwidth",
                   streamed * 1.073741824 / copy_s, copy_s);
            metric(NULL, "copy_bandwidth", streamed * 1.073741824 / copy_s, "GB/s");
        }
        if (read_s > 0) { /* sets given back to their file: read before each chunk's copy */
            printf("%-32s %12.2f  s in all (%.3f s a partition)\n", "  read from the parameter file", read_s,
                   read_s / parts);
            metric(NULL, "file_read", read_s / parts, "s");
        }
        if (mapped > 0) { /* sets given back to a file in memory: copied from its pages, no read */
            printf("%-32s %12.3f  GiB a partition\n", "  copied from the file's pages", mapped / parts);
            metric(NULL, "file_mapped_per_partition", mapped / parts, "GiB");
        }
        printf("%-32s %12.0f  (of them staged ahead while the link was idle: %.0f G1, %.0f G2)\n",
               "  chunks streamed", chunks[0], chunks[1], chunks[2]);
        metric(NULL, "streamed_chunks", chunks[0], "count");
        metric(NULL, "staged_chunks_g1", chunks[1], "count");
        metric(NULL, "staged_chunks_g2", chunks[2], "count");
    }
    if (pre[0] + pre[1] + pre[2] > 0) {
        printf("%-32s %12.0f / %.0f / %.0f  partitions (whole / a alone / refused)\n", "a, b, c prefetched ahead of h",
               pre[0], pre[1], pre[2]);
        metric(NULL, "prefetch_abc_whole", pre[0], "partitions");
        metric(NULL, "prefetch_a_alone", pre[1], "partitions");
        metric(NULL, "prefetch_refused", pre[2], "partitions");
        for (int i = 0; i < nlast[0]; i++) {
            if (nlast[1] == nlast[0] && nlast[2] == nlast[0])
                printf("%-32s %12.3f  GiB held (MSM pool %.3f), query stage still to allocate %.3f GiB\n",
                       "  the last decided on", last[0][i], last[1][i], last[2][i]);
            else
                printf("%-32s %12.3f  GiB held\n", "  the last decided on", last[0][i]);
        }
        if (nlast[0] == 1 && nlast[1] == 1 && nlast[2] == 1) {
            metric(NULL, "prefetch_last_held", last[0][0], "GiB");
            metric(NULL, "prefetch_last_pool", last[1][0], "GiB");
            metric(NULL, "prefetch_last_query", last[2][0], "GiB");
        }
    }
    if (ndev_busy > 1) { /* the engine's own account: each device's time under its lock */
        printf("%-32s", "engine busy, each device (s)");
        for (int d = 0; d < ndev_busy; d++) printf(" %.3f", dev_busy[d]);
        printf("\n");
    }
    for (int d = 0; d < ndev_busy; d++) {
        char name[32];
        snprintf(name, sizeof name, "device%d_busy", d);
        metric(NULL, name, dev_busy[d], "s");
    }
    for (int i = 0; i < nm; i++)
        printf("GPU utilisation each second, %-5s %s\n", modes[i].name,
               modes[i].util_secs ? modes[i].util_secs : "n/a");
    printf("proofs: %s; identical across calls and modes: %s\n", verdict, same);

    metric(NULL, "create_srs", srs_s, "s");
    metric(NULL, "circuits", (double)b.circuits, "count");
    metric(NULL, "calls", (double)b.calls, "count");
    metric(NULL, "threads", (double)b.threads, "count");
    metric(NULL, "params_file", params_gib, "GiB");
    metric(NULL, "required_buffers", need_gib, "GiB");
    metric(NULL, "dumps_held", dumps_gib, "GiB");
    metric(NULL, "peak_rss_after_srs", (double)rss_srs / (1024.0 * 1024.0), "GiB");
    for (int i = 0; i < nm; i++) {
        const mode_result* m = &modes[i];
        metric(m->name, "call_cold", g_cold(m, &b), "s");
        metric(m->name, "call_min", g_min(m, &b), "s");
        metric(m->name, "call_median", g_med(m, &b), "s");
        metric(m->name, "circuit_cold", g_circ_cold(m, &b), "s");
        metric(m->name, "circuit_min", g_circ_min(m, &b), "s");
        metric(m->name, "circuit_median", g_circ_med(m, &b), "s");
        metric(m->name, "first_proof", g_first(m, &b), "s");
        if (m->start) metric(m->name, "start_median", g_start_med(m, &b), "s");
        metric(m->name, "wall", g_wall(m, &b), "s");
        metric(m->name, "throughput", g_tput(m, &b), "circuits/s");
        metric(m->name, "gpu_util_mean", m->util_mean, "%");
        metric(m->name, "gpu_busy_in_calls", m->util_calls, "%");
        metric(m->name, "peak_rss", g_rss(m, &b), "GiB");
        printf("metric %s.gpu_util_seconds %s\n", m->name, m->util_secs ? m->util_secs : "n/a");
    }
    metric(NULL, "proofs_ok", bad ? 0 : 1, "bool");
    if (have_nvml) nvml.shutdown();
    return bad ? 1 : 0;
}
