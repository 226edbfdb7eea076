/*
 * supraseal_c2.h — libcuzk's drop-in for the supraseal-c2 C2 prover ABI.
 *
 * The names, struct layouts and semantics are supraseal-c2's, so that
 * rust-fil-proofs / bellperson can link libcuzk in its place. The calls run
 * through the same engine as cuzk.h (the GPU mutex is held with the
 * device's interlock; the CPU backend serves where no GPU is usable, with
 * every proof verified before it is returned).
 *
 * Errors: RustError { code, message }; code 0 is success. The message is
 * allocated by the library with malloc and released by the caller with
 * free(). Nothing aborts the host: bad arguments (null pointers, sizes that
 * do not match the SRS) come back as errors, code 1 with a message naming
 * the argument, checked before any of the host's memory is read:
 * num_circuits is 1 .. 65536; each Assignment's abc_size is at most the
 * SRS's domain, inp/aux_assignment_size at most its inputs/aux, every
 * bit_len equals its vector's size, every popcount is at most its bit_len
 * and equal to the bits set. Code 11 is a bug; its message carries no
 * stack (that goes to the library's log).
 *
 * Memory layouts (checked by tests): fr_t is 4 little-endian u64 limbs in
 * Montgomery form (R = 2^256); fp_t is 6 limbs (R = 2^384); affine points
 * are {x, y} (G2: {x.c0, x.c1, y.c0, y.c1}), all zero for the point at
 * infinity; groth16_proof is {G1 a; G2 b; G1 c}, 384 bytes.
 *
 * Ownership: the caller owns every input. a, b, c must stay valid until
 * generate_groth16_proofs_start_c returns (they are copied); the
 * assignments and density bitmaps until finalize_groth16_proof_c (or
 * destroy_pending_proof) returns; proofs[] is caller-allocated.
 * Freeing a, b, c while the proof runs is allowed but costs it time: the
 * kernel's unmapping of GiB-size buffers stalls the threads that drive
 * the GPU (measured on an H200 at 2^26: +0.13 s a circuit when 6 GiB were
 * freed as start returned, none when freed after finalize). Where the
 * host can, free them after finalize_groth16_proof_c.
 *
 * Throttle: if the host defines `void set_membw_throttle(int)`, it is
 * called with 1 when a G2 MSM starts with none running and with 0 when the
 * last one ends (a weak symbol: hosts without it need not define it).
 */
#ifndef SUPRASEAL_C2_H
#define SUPRASEAL_C2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct RustError {
    int32_t code;
    char* message;
} RustError;

typedef struct { uint64_t limbs[4]; } fr_t;
typedef struct { uint64_t limbs[6]; } fp_t;
typedef struct { fp_t x, y; } g1_affine_t;
typedef struct { fp_t x[2], y[2]; } g2_affine_t;
typedef struct groth16_proof {
    g1_affine_t a;
    g2_affine_t b;
    g1_affine_t c;
} groth16_proof;

/* A reference-counted SRS (parameter set) handle. */
typedef struct SRS {
    const void* ptr;
} SRS;

/* One circuit's host-synthesized assignment: 17 machine words. Bitmaps are
 * u64 words, least significant bit first. */
typedef struct Assignment {
    const uint64_t* a_aux_density;
    size_t a_aux_bit_len;
    size_t a_aux_popcount;
    const uint64_t* b_inp_density;
    size_t b_inp_bit_len;
    size_t b_inp_popcount;
    const uint64_t* b_aux_density;
    size_t b_aux_bit_len;
    size_t b_aux_popcount;
    const fr_t* a;
    const fr_t* b;
    const fr_t* c;
    size_t abc_size;
    const fr_t* inp_assignment_data;
    size_t inp_assignment_size;
    const fr_t* aux_assignment_data;
    size_t aux_assignment_size;
} Assignment;

/* capi defines CUZK_NO_PROTOTYPES: cgo cannot export a function declared
 * with const parameters. tests/c/run.sh compiles these prototypes against
 * capi's exports (tests/c/exports.c), so the two cannot drift apart. */
#ifndef CUZK_NO_PROTOTYPES

/* A GPU mutex for gpu_mtx; calls sharing one serialize their device work
 * (generate_groth16_proofs_c). Destroy it only when no call using it runs. */
void* create_gpu_mutex(void);
void destroy_gpu_mutex(void* mtx);

/* Loads the .params file at path into *ret, validated as cuzk_load_params
 * does. With cache, one loaded SRS is shared per path (until evict_SRS; at
 * most 4 stay cached, the least recently created leaving first; a cached
 * SRS whose file changed since is loaded again). */
RustError create_SRS(SRS* ret, const char* path, bool cache);
/* Removes the SRS's path from the cache, whichever handle of that path is
 * given; handles stay valid until dropped, and the last one dropped frees
 * the SRS's device memory. */
void evict_SRS(const SRS* srs);
/* Releases a reference. */
void drop_SRS(SRS* srs);
/* Adds a reference. */
SRS clone_SRS(const SRS* srs);

/* Proves num_circuits assignments with randomness r_s[i], s_s[i] into
 * proofs[i], at the engine's NORMAL priority (CUZK_PRIORITY_NORMAL in cuzk.h).
 *
 * gpu_index: -1 spreads the circuits over every device the library proves
 * on (each circuit goes to the first free one). gpu_index >= 0 pins every
 * circuit of the call to the GPU with that CUDA ordinal (as the host's CUDA
 * runtime numbers them, after CUDA_VISIBLE_DEVICES; a GPU left out by the
 * configuration's gpus.devices is not one of the library's). An index that
 * names no such GPU is refused before anything runs: code 1
 * (CUZK_ERR_INVALID_ARGUMENT in cuzk.h), with a message naming gpu_index and
 * the devices there are. A value below -1 is refused the same way.
 *
 * On a host without a usable GPU, the library proves on the CPU. That CPU is
 * not a GPU: gpu_index -1 proves on it, and every gpu_index >= 0 is refused
 * with a message saying the host has no GPU. The existing library fails
 * every call there (ENODEV); cuzk keeps the calls that ask for no particular
 * device working, and refuses the ones that name a GPU rather than quietly
 * running them somewhere else, so a host that pins partitions to GPUs finds
 * out at its first call that the GPU it counts on is not there.
 *
 * gpu_mtx: NULL takes no extra lock. Each device already serializes its own
 * kernel region (its interlock), so calls on different GPUs run at once and
 * calls on one GPU overlap their CPU work around its kernels. A mutex from
 * create_gpu_mutex is held around each circuit's device region, taken before
 * the device's own lock: the calls that pass the same mutex run their device
 * work one circuit at a time, whatever GPUs they use, and calls that do not
 * pass it never wait for it. Any other pointer is refused (code 1). */
RustError generate_groth16_proofs_c(const Assignment provers[], size_t num_circuits,
                                    const fr_t r_s[], const fr_t s_s[], groth16_proof proofs[],
                                    const SRS* srs, void* gpu_mtx, int gpu_index);

/* The same, asynchronously: *pending_out receives a handle for
 * finalize_groth16_proof_c (which writes the proofs and consumes it) or
 * destroy_pending_proof (which abandons it). */
RustError generate_groth16_proofs_start_c(const Assignment provers[], size_t num_circuits,
                                          const fr_t r_s[], const fr_t s_s[],
                                          const SRS* srs, void* gpu_mtx, int gpu_index,
                                          void** pending_out);
RustError finalize_groth16_proof_c(void* pending, groth16_proof proofs[]);
void destroy_pending_proof(void* pending);

#endif /* CUZK_NO_PROTOTYPES */

#ifdef __cplusplus
}
#endif

#endif /* SUPRASEAL_C2_H */
