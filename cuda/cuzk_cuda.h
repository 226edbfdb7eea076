/*
 * cuzk_cuda.h — the C ABI of libcuzk_cuda.so, cuzk's CUDA kernels for
 * BLS12-381. libcuzk loads it at run time with dlopen; nothing in it exits
 * or aborts: every function returns 0 on success or a non-zero code with a
 * NUL-terminated message written into err (errlen bytes).
 *
 * Host buffers need not be page-locked: large copies go through a pinned
 * double buffer per device, filled by several host threads; buffers
 * registered with cuzk_cuda_host_register are copied directly.
 *
 * Field elements are the scalar field Fr of BLS12-381, 32 bytes each: four
 * little-endian 64-bit limbs in Montgomery form (R = 2^256), the layout of
 * gnark-crypto's fr.Element and of blst/supraseal's fr_t.
 *
 * Domain constants are passed in, not built in, so that the GPU uses exactly
 * the CPU's domain: consts points to six elements, in this order:
 *   omega      a primitive n-th root of unity (n = the transform size)
 *   omega_inv  its inverse
 *   n_inv      1/n
 *   g          the coset shift (7 for bellperson's domain)
 *   g_inv      1/g
 *   z_inv      1/(g^n - 1), the inverse of the vanishing polynomial on the coset
 */
#ifndef CUZK_CUDA_H
#define CUZK_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_CUDA_ABI_VERSION 16

/* Return codes. 1: an argument is wrong. 2: another failure with no CUDA
 * error number kept (an internal check). CUZK_CUDA_ERR_CUDA + e (e > 0): the
 * CUDA runtime returned cudaError_t e, from which the caller tells an error
 * that leaves the device's context unusable until the process ends (a kernel
 * fault such as cudaErrorIllegalAddress: every later call on the device fails
 * the same way) from one that does not (cudaErrorMemoryAllocation). */
#define CUZK_CUDA_ERR_CUDA 1000

/* MSM results are window sums: Pippenger's method with c-bit signed
 * windows gives W_0..W_{nw-1}, and the MSM is Σ_w 2^(c·w)·W_w, which the
 * caller combines by Horner's rule (~c·nw doublings: microseconds on a
 * CPU, milliseconds for one GPU thread). A result block is
 *   int32_t c, nw, pad[2];   then CUZK_CUDA_MAX_WINDOWS Jacobian points
 * (G1Jac, 144 bytes, or G2Jac, 288 bytes), of which the first nw are set;
 * nw = 0 means the point at infinity. */
#define CUZK_CUDA_MAX_WINDOWS 32

/* Handles: each kind of object the library keeps on a device has its own
 * opaque type, so that a handle given to a function of another kind (a G1
 * set to cuzk_cuda_g2_free, a streamer to cuzk_cuda_scalars_free) does not
 * compile. None of them is ever defined: the library casts them to its own
 * types at the entry point. Each is freed by its own _free function.
 *   cuzk_cuda_g1_set    a resident set of G1 points (cuzk_cuda_g1_upload, _alloc)
 *   cuzk_cuda_g2_set    a resident set of G2 points (cuzk_cuda_g2_upload, _alloc)
 *   cuzk_cuda_scalars   a vector of Fr elements on a device (cuzk_cuda_scalars_upload,
 *                       _select, cuzk_cuda_h_abc_scalars, _h_abc_lean_scalars)
 *   cuzk_cuda_abc       a, b, c on their way to h (cuzk_cuda_abc_upload)
 *   cuzk_cuda_stream    a streamer of G1 or G2 points (cuzk_cuda_stream_new) */
typedef struct cuzk_cuda_g1_set cuzk_cuda_g1_set;
typedef struct cuzk_cuda_g2_set cuzk_cuda_g2_set;
typedef struct cuzk_cuda_scalars cuzk_cuda_scalars;
typedef struct cuzk_cuda_abc cuzk_cuda_abc;
typedef struct cuzk_cuda_stream cuzk_cuda_stream;

/* The ABI version this library implements (CUZK_CUDA_ABI_VERSION). */
int cuzk_cuda_abi_version(void);

/* Number of CUDA devices. */
int cuzk_cuda_device_count(int* count, char* err, size_t errlen);

/* Name and memory of device dev. */
int cuzk_cuda_device_info(int dev, char* name, size_t namelen, size_t* vram_total, size_t* vram_free,
                          char* err, size_t errlen);

/* In-place NTT of x (n elements in host memory, n a power of two, 2 ≤ n ≤ 2^28),
 * natural order in and out. inverse: the inverse transform (scaled by 1/n).
 * coset: evaluate on (inverse: interpolate from) the coset g·<omega>. */
int cuzk_cuda_ntt(int dev, void* x, size_t n, int inverse, int coset, const void* consts,
                  char* err, size_t errlen);

/* Groth16's quotient: given the evaluations a, b, c over <omega> (n
 * elements each, host memory), writes into a the coefficients of
 * h = (a·b − c)/(x^n − 1) (the first n−1 are h; the last is 0). b and c
 * are left unspecified. */
int cuzk_cuda_ntt_h(int dev, void* a, void* b, void* c, size_t n, const void* consts,
                    char* err, size_t errlen);

/* h as cuzk_cuda_ntt_h, computed on the device and used there as the
 * scalars of an MSM over the first n−1 points of the resident G1 set
 * handle (the H query): *result receives a G1 result block; a, b, c are left
 * unchanged and h never leaves the device. ms[0] receives the milliseconds
 * of the uploads and h, ms[1] those of the MSM. */
int cuzk_cuda_h_msm_g1(int dev, void* a, void* b, void* c, size_t n, const void* consts,
                       cuzk_cuda_g1_set* handle, void* result, double* ms, char* err, size_t errlen);

/* Starts copying a, b, c (n elements each, host memory) to device dev
 * for cuzk_cuda_h_msm_g1_abc; *abc receives the handle. Page-locked
 * buffers are copied on a copy stream, beside kernels that run meanwhile
 * (they must stay unchanged until the handle is used or freed); others are
 * copied before the call returns. b and c may both be NULL: a alone goes
 * up (when the device has room for one vector now and for the rest
 * later), and cuzk_cuda_abc_add must give b and c before the handle is
 * used. */
int cuzk_cuda_abc_upload(int dev, const void* a, const void* b, const void* c, size_t n,
                         cuzk_cuda_abc** abc, char* err, size_t errlen);

/* Starts copying b and c into a handle made with a alone, as
 * cuzk_cuda_abc_upload copies; on failure the handle keeps a alone. */
int cuzk_cuda_abc_add(cuzk_cuda_abc* abc, const void* b, const void* c, char* err, size_t errlen);

/* cuzk_cuda_h_msm_g1 on a, b, c from cuzk_cuda_abc_upload; the handle is
 * consumed (freed, also on error). ms[0] receives the milliseconds of h
 * (with any wait for the copies), ms[1] those of the MSM. */
int cuzk_cuda_h_msm_g1_abc(cuzk_cuda_abc* abc, const void* consts, cuzk_cuda_g1_set* handle, void* result,
                           double* ms, char* err, size_t errlen);

/* Frees an abc handle that was not used (after its copies finish). */
void cuzk_cuda_abc_free(cuzk_cuda_abc* abc);

/* The bench entry points (cuzk_cuda_bench_ntt, cuzk_cuda_bench_msm_g1,
 * cuzk_cuda_bench_msm_g2, cuzk_cuda_bench_force_branch_convert,
 * cuzk_cuda_bench_refuse_pass_scratch) are
 * optional symbols: only a bench build (make -C cuda BENCH=1, which the
 * device scripts use) exports them; a caller looks them up and does
 * without when they are absent. */

/* on != 0: every MSM's accumulation converts its piece sums to Jacobian
 * in k_subsum's branch, the path it takes when the XYZZ sums get no
 * buffer (for the tests of that path; a bench build only). */
void cuzk_cuda_bench_force_branch_convert(int on);

/* The next passes MSM passes of more than one window are refused as if
 * their scratch had been (cudaErrorMemoryAllocation after their sort), so
 * that each runs again with half its windows; returns how many of the
 * last setting were left (for the tests of that retry; a bench build
 * only). */
int cuzk_cuda_bench_refuse_pass_scratch(int passes);

/* Times k repetitions of a forward NTT of size n on random device data
 * (for the bench driver; a bench build only); *ms receives the median
 * milliseconds. */
int cuzk_cuda_bench_ntt(int dev, size_t n, int k, const void* consts, double* ms,
                        char* err, size_t errlen);

/* Uploads n affine G1 points (gnark-crypto's G1Affine: x, y as 6 Montgomery
 * limbs each; (0, 0) is infinity) to device dev and keeps them resident;
 * *handle names the set until cuzk_cuda_g1_free. */
int cuzk_cuda_g1_upload(int dev, const void* points, size_t n, cuzk_cuda_g1_set** handle, char* err, size_t errlen);
void cuzk_cuda_g1_free(cuzk_cuda_g1_set* handle);

/* A set filled in parts (a parameter file's section as it is decoded):
 * cuzk_cuda_g1_alloc makes a resident set of n points whose contents are
 * undefined until written; cuzk_cuda_g1_put copies n points from the host
 * into points [offset, offset + n) of it (page-locked host memory directly,
 * other memory through a pinned buffer; on a stream of the library's own,
 * so that a put runs beside kernels queued by other threads). Puts to
 * disjoint ranges may run from several threads at once. */
int cuzk_cuda_g1_alloc(int dev, size_t n, cuzk_cuda_g1_set** handle, char* err, size_t errlen);
int cuzk_cuda_g1_put(cuzk_cuda_g1_set* handle, size_t offset, const void* points, size_t n, char* err, size_t errlen);

/* Σ scalars[i]·points[i] over the first n points of a resident set, with
 * scalars as Fr elements in host memory. *result receives a result block
 * (above) of G1Jac points (X, Y, Z; gnark-crypto's layout; Z = 0 is
 * infinity). */
int cuzk_cuda_msm_g1(cuzk_cuda_g1_set* handle, const void* scalars, size_t n, void* result, char* err, size_t errlen);

/* Median milliseconds of reps MSMs over the first n points of a set with
 * uniformly random device-resident scalars (for the bench driver; a bench
 * build only). */
int cuzk_cuda_bench_msm_g1(cuzk_cuda_g1_set* handle, size_t n, int reps, double* ms, char* err, size_t errlen);

/* The same for G2: points as gnark-crypto's G2Affine (x, y in Fp2, each
 * c0 then c1, 6 Montgomery limbs per coordinate), result blocks of G2Jac
 * points. */
int cuzk_cuda_g2_upload(int dev, const void* points, size_t n, cuzk_cuda_g2_set** handle, char* err, size_t errlen);
void cuzk_cuda_g2_free(cuzk_cuda_g2_set* handle);
int cuzk_cuda_g2_alloc(int dev, size_t n, cuzk_cuda_g2_set** handle, char* err, size_t errlen);
int cuzk_cuda_g2_put(cuzk_cuda_g2_set* handle, size_t offset, const void* points, size_t n, char* err, size_t errlen);
int cuzk_cuda_msm_g2(cuzk_cuda_g2_set* handle, const void* scalars, size_t n, void* result, char* err, size_t errlen);
int cuzk_cuda_bench_msm_g2(cuzk_cuda_g2_set* handle, size_t n, int reps, double* ms, char* err, size_t errlen);

/* Prime-order subgroup check of points [offset, offset + n) of a resident
 * set (the handle from cuzk_cuda_g1_upload / _alloc, or the G2 ones):
 * *n_bad receives the number of those points outside G1 (G2), *first_bad
 * the least index (in the set, not from offset) of one, or SIZE_MAX when
 * all are in it. Infinity passes. The points must be on the curve (the
 * test assumes it: a point off the curve may pass). One thread a point
 * (subgroup.cuh: G1 by φ(P) against [x²]P, G2 by ψ(P) against [x]P); the
 * set is left unchanged and stays resident. Checks of different ranges may
 * run from several threads at once (their kernels run one after another on
 * the device). The results are left untouched on failure. */
int cuzk_cuda_g1_check_subgroup(cuzk_cuda_g1_set* handle, size_t offset, size_t n, size_t* n_bad, size_t* first_bad, char* err,
                                size_t errlen);
int cuzk_cuda_g2_check_subgroup(cuzk_cuda_g2_set* handle, size_t offset, size_t n, size_t* n_bad, size_t* first_bad, char* err,
                                size_t errlen);

/* Scalar vectors on the device (the prep): cuzk_cuda_scalars_upload copies
 * n Fr elements from the host; cuzk_cuda_scalars_select makes a new vector
 * of the n_head host elements head followed by the elements of the vector
 * aux whose bit is set in words (little-endian 64-bit words, bit i of word
 * i/64 for element i; ⌈n/64⌉ words, bits at or past n ignored), in order,
 * and writes its length into *n_out. Handles live until
 * cuzk_cuda_scalars_free. */
int cuzk_cuda_scalars_upload(int dev, const void* host, size_t n, cuzk_cuda_scalars** handle, char* err, size_t errlen);
int cuzk_cuda_scalars_select(cuzk_cuda_scalars* aux, const void* head, size_t n_head, const uint64_t* words,
                             cuzk_cuda_scalars** handle, size_t* n_out, char* err, size_t errlen);
int cuzk_cuda_scalars_download(cuzk_cuda_scalars* handle, void* host, char* err, size_t errlen); /* all n elements */
void cuzk_cuda_scalars_free(cuzk_cuda_scalars* handle);

/* A device's options, set by cuzk_cuda_set_options (the defaults: all
 * fields 0 except msm_pool = 1) and read by every later call on it.
 *   max_device_memory  bytes cuzk may hold on the device: resident point
 *                      sets, scalar vectors, MSM and NTT scratch, twiddle
 *                      tables, stream buffers and the MSM pool's
 *                      reservation (not the CUDA context itself); an
 *                      allocation past it fails with
 *                      CUZK_CUDA_ERR_CUDA + cudaErrorMemoryAllocation, and
 *                      an MSM splits its windows into passes to stay within
 *                      it. 0: no cap (the device's memory).
 *   msm_max_pairs      at most this many (point, window) pairs an MSM pass
 *                      (0: as the memory allows).
 *   msm_window_bits    0: the window size follows the MSM's size (8-16
 *                      bits); 8..20: this size.
 *   msm_pool           1: an MSM's scratch stays in the device's
 *                      stream-ordered pool for the next MSM (~4% faster at
 *                      2^24); 0: handed back after each MSM (a GPU shared
 *                      with other processes).
 *   profile            1: phase timings of each MSM and h on stderr.
 *   host_sync          how a host thread waits for the device (the
 *                      device's scheduling flags): 0 the CUDA runtime's
 *                      choice (it spins while the process has fewer
 *                      contexts than the host has cores), 1 spin, 2 yield,
 *                      3 block on a synchronization primitive (the core
 *                      is free for other threads while the device works). */
typedef struct cuzk_cuda_options {
    uint64_t max_device_memory;
    uint64_t msm_max_pairs;
    int32_t msm_window_bits;
    int32_t msm_pool;
    int32_t profile;
    int32_t host_sync;
} cuzk_cuda_options;

int cuzk_cuda_set_options(int dev, const cuzk_cuda_options* opts, char* err, size_t errlen);

/* What cuzk holds on device dev by its own count (held: cudaMalloc'd bytes
 * in 2 MiB pages plus the MSM pool's reservation), the most it held since
 * the options were last set or the peak reset (reset_peak = 1 resets it to
 * held after reading), the cap in force (0: none), and (pool, may be NULL)
 * the part of held that the MSM pool reserves, in use by an MSM or idle:
 * the scratch every later MSM takes first (one MSM at a time on a device
 * returns it before the next); 0 with the msm_pool option off, whose
 * reservation goes back after each MSM (held still counts what is there). */
int cuzk_cuda_memory(int dev, uint64_t* held, uint64_t* peak, uint64_t* cap, uint64_t* pool, int reset_peak, char* err,
                     size_t errlen);

/* Streaming a point set that does not stay resident: a streamer of one
 * group (1: G1, 2: G2) on device dev holds two device buffers of chunk
 * points each. cuzk_cuda_stream_put starts copying n <= chunk points from
 * the host into buffer slot (0 or 1): page-locked host memory (registered
 * with cuzk_cuda_host_register) is copied on a copy stream, beside the
 * kernels of an MSM running meanwhile on the other slot; other memory is
 * copied before the call returns. cuzk_cuda_stream_msm waits for the slot's
 * copy and writes into *result the window sums of Σ s[offset + i]·points[i]
 * over the slot's n points, with s a device scalar vector (n + offset <= its
 * length); it returns when the MSM is done, so that the slot may be put
 * again. The two calls may run on two threads at once, one per slot.
 * With set_n > 0 the slot holds points [offset, offset + n) of a set of
 * set_n points streamed in order: the chunk at offset 0 opens the set (its
 * window size follows set_n), each chunk's bucket sums are added into
 * buckets the streamer keeps (~nw·2^(c−1) points: 72 MiB of G1, 144 MiB of
 * G2 from 2^24 points), and the chunk that ends the set writes the whole
 * set's window sums into *result (the others an empty result, nw = 0): the
 * running and window sums are paid once a set instead of once a chunk. A
 * chunk out of order, or after an error, is refused. */
int cuzk_cuda_stream_new(int dev, int group, size_t chunk, cuzk_cuda_stream** stream, char* err, size_t errlen);
int cuzk_cuda_stream_put(cuzk_cuda_stream* stream, int slot, const void* points, size_t n, char* err, size_t errlen);
int cuzk_cuda_stream_msm(cuzk_cuda_stream* stream, int slot, cuzk_cuda_scalars* scalars, size_t offset, size_t n,
                         size_t set_n, void* result, char* err, size_t errlen);
void cuzk_cuda_stream_free(cuzk_cuda_stream* stream);

/* cuzk_cuda_stream_put for n points as a parameter file stores them
 * (bellperson's uncompressed encoding: G1 x, y; G2 x.c1, x.c0, y.c1, y.c0;
 * 48 bytes each, big-endian; the infinity flag 0x40), 96 or 192 bytes a
 * point, e.g. the file's pages mapped: they are copied as they are and
 * converted on the device, the slot's MSM waiting for the conversion. The
 * points are not checked again: they were when the file was loaded. */
int cuzk_cuda_stream_put_file(cuzk_cuda_stream* stream, int slot, const void* encoded, size_t n, char* err,
                              size_t errlen);

/* Waits until the copy of slot started by a put (on the copy stream, from
 * page-locked memory, with its conversion for cuzk_cuda_stream_put_file)
 * is done, so that the host memory it copied from may be written again;
 * returns at once when none is in flight. It may run beside an MSM of
 * either slot. */
int cuzk_cuda_stream_wait(cuzk_cuda_stream* stream, int slot, char* err, size_t errlen);

/* The bytes a streamer has copied to the device since the last call, and
 * the nanoseconds the copies took (direct copies timed by events on the
 * copy stream, staged ones on the host), both reset by the call: their
 * ratio is the achieved host-to-device bandwidth. */
int cuzk_cuda_stream_take_stats(cuzk_cuda_stream* stream, uint64_t* bytes, uint64_t* copy_ns, char* err, size_t errlen);

/* h of an abc handle (cuzk_cuda_abc_upload) kept on the device as a scalar
 * vector of its n − 1 coefficients (*scalars, freed with
 * cuzk_cuda_scalars_free), for an H query that is streamed; the abc handle
 * is consumed (freed, also on error). */
int cuzk_cuda_h_abc_scalars(cuzk_cuda_abc* abc, const void* consts, cuzk_cuda_scalars** scalars, char* err, size_t errlen);

/* cuzk_cuda_h_abc_scalars for a handle holding a alone (cuzk_cuda_abc_upload
 * with b and c NULL, no cuzk_cuda_abc_add): b and c are copied up one after
 * the other (b's copy beside a's NTTs, c's once b is folded into a), so that
 * two vectors of n beside the twiddle tables are on the device at once
 * instead of three (a 2^27 partition's h stage takes 12 GiB instead of 16).
 * b and c must stay unchanged until it returns; the handle is consumed. */
int cuzk_cuda_h_abc_lean_scalars(cuzk_cuda_abc* abc, const void* b, const void* c, const void* consts,
                                 cuzk_cuda_scalars** scalars, char* err, size_t errlen);

/* Page-locks (cudaHostRegister, portable to every device) bytes of host
 * memory at p, for the caller's long-lived buffers; unregister before
 * freeing them. */
int cuzk_cuda_host_register(void* p, size_t bytes, char* err, size_t errlen);
int cuzk_cuda_host_unregister(void* p, char* err, size_t errlen);

/* cuzk_cuda_host_register for memory the device only reads and the host
 * may map read-only (cudaHostRegisterReadOnly): a parameter file's pages
 * in tmpfs, mapped shared, copied to the device as they are. Fails with
 * the CUDA error on a device that does not support it; unregister with
 * cuzk_cuda_host_unregister. */
int cuzk_cuda_host_register_read_only(void* p, size_t bytes, char* err, size_t errlen);

/* MSMs over device scalar vectors: Σ scalars[i]·points[i] for every element
 * of the vector, against the first points of a resident set. */
int cuzk_cuda_msm_g1_resident(cuzk_cuda_g1_set* points, cuzk_cuda_scalars* scalars, void* result, char* err, size_t errlen);
int cuzk_cuda_msm_g2_resident(cuzk_cuda_g2_set* points, cuzk_cuda_scalars* scalars, void* result, char* err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
