/*
 * cuzk.h — the C API of libcuzk, a Groth16 prover for BLS12-381 (Filecoin).
 *
 * Error pattern (every function that can fail):
 *   Functions return a cuzk_error by value. code == CUZK_OK (0) means
 *   success and message is NULL. Otherwise code is one of cuzk_code and
 *   message is a NUL-terminated description allocated by the library; the
 *   caller releases it with cuzk_free(). Out-parameters are left untouched
 *   on failure. No function aborts the process or lets a panic escape: an
 *   internal fault (a bug) is reported as CUZK_ERR_INTERNAL, whose message
 *   says what failed but carries no stack or source path; the stack goes to
 *   the library's log (stderr) at error level.
 *
 * Sizes and flags: every count the caller passes is checked before any of
 * its memory is read or any buffer is sized from it, and a wrong one is
 * CUZK_ERR_INVALID_ARGUMENT with a message naming the argument:
 *   num_partitions, num_proofs, proofs_len / 192   1 .. 65536
 *   cuzk_witness num_inputs, num_aux               exactly the circuit's
 *   cuzk_verify num_public                         at most the circuit's public inputs
 *   cuzk_matrices num_inputs + num_aux             1 .. 2^31 (num_inputs counts ONE)
 *   cuzk_matrices num_constraints                  at most 2^32 (BLS12-381's largest domain)
 *   row_ptr                                        starts at 0, never decreases, at most
 *                                                  num_inputs + num_aux terms a row and
 *                                                  2^32 terms a matrix
 * A flag bit this header does not define for that argument is refused the
 * same way (the message names the flags argument). The library cannot see
 * how large the caller's buffers are: a count within these bounds that is
 * larger than its buffer is still the caller's memory error.
 *
 * Timeouts: timeout_ms values too large for the library's clock (above
 * 2^63 - 1 ns, about 292 years) are taken as that maximum, which is no
 * deadline in practice; they never wrap to a short one.
 *
 * Field elements are 32 bytes. By default they are in Montgomery form,
 * little-endian 64-bit limbs (R = 2^256): the in-memory form of blstrs'
 * Scalar and gnark-crypto's fr.Element. With CUZK_FLAG_CANONICAL they are
 * canonical little-endian integers below r. Values outside the field are
 * refused (CUZK_ERR_INVALID_ARGUMENT).
 *
 * Proofs are bellperson's 192 bytes each (compressed A, B, C); a request's
 * partition proofs are concatenated in partition order.
 *
 * Thread safety: every function may be called from any thread at any time.
 * Proving runs on the library's own goroutines; cuzk_prove blocks only the
 * calling thread. cuzk_config reconfigures the process-wide engine and is
 * refused (CUZK_ERR_BUSY) while jobs are in flight.
 *
 * Verification: unless configured otherwise (verify_proofs = false), every
 * proof is verified before it is returned; a proof that fails is reported
 * as CUZK_ERR_NOT_VERIFIED and never returned.
 */
#ifndef CUZK_H
#define CUZK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. */
typedef enum cuzk_code {
    CUZK_OK = 0,
    CUZK_ERR_INVALID_ARGUMENT = 1, /* null pointer, wrong size, bad value or flag */
    CUZK_ERR_NOT_FOUND = 2,        /* unknown circuit or job, missing file */
    CUZK_ERR_BAD_FILE = 3,         /* corrupt, truncated or foreign params / r1cs file */
    CUZK_ERR_UNSATISFIED = 4,      /* the witness does not satisfy the circuit */
    CUZK_ERR_INVALID_PROOF = 5,    /* cuzk_verify: well-formed proof that does not verify */
    CUZK_ERR_CANCELLED = 6,        /* the job was cancelled */
    CUZK_ERR_TIMEOUT = 7,          /* deadline passed, or cuzk_await timed out (job still running) */
    CUZK_ERR_BUSY = 8,             /* reconfiguration with jobs in flight; request id in use */
    CUZK_ERR_CONFIG = 9,           /* invalid configuration (the message names the key) */
    CUZK_ERR_NOT_VERIFIED = 10,    /* a produced proof failed verification and was not returned */
    CUZK_ERR_INTERNAL = 11,        /* a fault inside the library (a bug): please report */
    CUZK_ERR_DEVICE = 12           /* a GPU call failed: out of memory or another CUDA error (the message names the
                                      CUDA error); after a sticky one the GPU is out of service (status: healthy false) */
} cuzk_code;

/* The result of every fallible call; see "Error pattern" above. */
typedef struct cuzk_error {
    int32_t code;
    char* message; /* NULL on success; else release with cuzk_free() */
} cuzk_error;

/* Flags. */
#define CUZK_FLAG_CANONICAL 1u      /* elements are canonical little-endian, not Montgomery */
#define CUZK_FLAG_TRUSTED_PARAMS 2u /* cuzk_load_params: skip the subgroup check (curve checks stay) */

/* Priorities (zero is normal). */
#define CUZK_PRIORITY_LOW (-1)
#define CUZK_PRIORITY_NORMAL 0
#define CUZK_PRIORITY_HIGH 1
#define CUZK_PRIORITY_CRITICAL 2

/* One partition's witness: inputs (inputs[0] is the constant ONE) and aux,
 * 32 bytes per element. Borrowed for the duration of the call that takes it
 * (the library copies what it keeps). */
typedef struct cuzk_witness {
    const uint8_t* inputs;
    size_t num_inputs;
    const uint8_t* aux;
    size_t num_aux;
} cuzk_witness;

/* A host witness callback, invoked from the library's synthesis threads
 * when partition `partition`'s turn comes; it fills inputs (num_inputs
 * elements) and aux (num_aux elements) in the request's element encoding
 * and returns 0, or non-zero to fail the job. It must be thread-safe; the
 * buffers are valid only during the call. */
typedef int32_t (*cuzk_witness_fn)(void* user_data, size_t partition,
                                   uint8_t* inputs, size_t num_inputs,
                                   uint8_t* aux, size_t num_aux);

/* A proof request. Zero-initialise, then set what you need. */
typedef struct cuzk_request {
    const char* circuit_id;         /* registered with cuzk_register_circuit* and cuzk_load_params */
    size_t num_partitions;
    const cuzk_witness* witnesses;  /* num_partitions entries, or NULL with witness_fn */
    cuzk_witness_fn witness_fn;     /* alternative to witnesses */
    void* witness_user_data;        /* passed to witness_fn */
    uint32_t flags;                 /* CUZK_FLAG_CANONICAL */
    int32_t priority;               /* CUZK_PRIORITY_* */
    const char* request_id;         /* optional; unique among jobs in flight (a duplicate is CUZK_ERR_BUSY) */
    uint64_t timeout_ms;            /* 0: the configured default (none unless set); saturates (see Timeouts) */
    const uint8_t* r;               /* optional fixed randomness (tests): num_partitions elements */
    const uint8_t* s;               /* given together with r */
} cuzk_request;

/* A finished job. Both buffers are allocated by the library; release them
 * with cuzk_result_free(). */
typedef struct cuzk_result {
    uint8_t* proofs;   /* 192 bytes per partition */
    size_t proofs_len;
    char* report_json; /* per-partition device, timeline and stage durations */
} cuzk_result;

/* A circuit given in memory: A, B and C in compressed sparse row form over
 * the variables [inputs | aux] (input 0 is ONE), num_constraints rows each.
 * Coefficients are 32-byte elements in the encoding set by flags.
 * Borrowed for the call (copied). */
typedef struct cuzk_matrix {
    const uint64_t* row_ptr; /* num_constraints + 1 entries */
    const uint32_t* col;     /* row_ptr[num_constraints] entries */
    const uint8_t* coeff;    /* row_ptr[num_constraints] elements */
} cuzk_matrix;

typedef struct cuzk_matrices {
    size_t num_inputs; /* including ONE */
    size_t num_aux;
    size_t num_constraints;
    cuzk_matrix a, b, c;
    uint32_t flags; /* CUZK_FLAG_CANONICAL */
} cuzk_matrices;

/* capi defines CUZK_NO_PROTOTYPES: cgo cannot export a function declared
 * with const parameters. tests/c/run.sh compiles these prototypes against
 * capi's exports (tests/c/exports.c), so the two cannot drift apart. */
#ifndef CUZK_NO_PROTOTYPES

/* The library version, e.g. "0.1.0". Static: do not free. */
const char* cuzk_version(void);

/* Configures (or reconfigures, when no job is in flight) the process-wide
 * engine from TOML or JSON text (see core/config/example.toml); NULL or ""
 * means the defaults. Without this call the engine starts with the
 * defaults on first use. Borrows the text.
 *
 * [metrics] listen = "127.0.0.1:PORT" makes the library serve HTTP on its
 * own goroutines: GET /metrics (what cuzk_metrics_text returns) and GET
 * /status (what cuzk_status_json returns). The listener is kept while the
 * address stays the same, rebound when it changes, and stopped when it is
 * removed; an address that cannot be bound is CUZK_ERR_CONFIG, and the
 * previous configuration (and listener) stays in force. */
cuzk_error cuzk_config(const char* toml_or_json);

/* Registers circuit_id's constraint system from a file (circom .r1cs
 * compiled with --prime bls12381, or cuzk's format). Borrows its arguments. */
cuzk_error cuzk_register_circuit(const char* circuit_id, const char* r1cs_path);

/* Registers circuit_id's constraint system from matrices in memory. */
cuzk_error cuzk_register_circuit_matrices(const char* circuit_id, const cuzk_matrices* m);

/* Loads circuit_id's parameters (.params file) and keeps them resident
 * until cuzk_evict_params. Every point is checked to be on the curve and,
 * unless flags or srs.skip_subgroup_check trust the file, in the subgroup:
 * once per file contents, remembered in srs.validation_record_dir (default
 * the platform cache directory, ~/.cache/cuzk), or by Filecoin's published
 * digest for its v28 files. Loading again replaces them. flags: 0 or
 * CUZK_FLAG_TRUSTED_PARAMS; any other bit is refused. */
cuzk_error cuzk_load_params(const char* circuit_id, const char* params_path, uint32_t flags);

/* Drops circuit_id's parameters; running jobs keep theirs until they end.
 * Their device memory (the points a GPU keeps resident) is freed once the
 * last job using them has ended. */
cuzk_error cuzk_evict_params(const char* circuit_id);

/* Proves a request and waits. On success *out holds the proofs. */
cuzk_error cuzk_prove(const cuzk_request* req, cuzk_result* out);

/* Queues a request; *job_out receives a handle for cuzk_await/cuzk_cancel.
 * The witnesses are copied before it returns. */
cuzk_error cuzk_submit(const cuzk_request* req, uint64_t* job_out);

/* Waits for a job, up to timeout_ms (0: no limit; saturates, see Timeouts). On CUZK_ERR_TIMEOUT the
 * job keeps running and the handle stays valid; any other return consumes
 * the handle. A handle names its own job for the life of the process, also
 * across cuzk_config. An ended job waits for cuzk_await holding only its
 * result; of the ended jobs nobody awaits, the oldest are dropped past 4,096
 * or 64 MiB of results, and awaiting those is CUZK_ERR_NOT_FOUND. */
cuzk_error cuzk_await(uint64_t job, uint64_t timeout_ms, cuzk_result* out);

/* Cancels a job: queued partitions never start, running ones stop at their
 * next check, and their memory is released. cuzk_await then reports
 * CUZK_ERR_CANCELLED. */
cuzk_error cuzk_cancel(uint64_t job);

/* Releases the buffers of a result (and zeroes it). NULL is ignored. */
void cuzk_result_free(cuzk_result* r);

/* Verifies proofs (192 bytes each; flags 0 or CUZK_FLAG_CANONICAL) of circuit_id with its loaded
 * parameters. public_inputs holds num_public elements per proof (without
 * the constant ONE), proofs in order. CUZK_ERR_INVALID_PROOF if any fails. */
cuzk_error cuzk_verify(const char* circuit_id, const uint8_t* proofs, size_t proofs_len,
                       const uint8_t* public_inputs, size_t num_public, uint32_t flags);

/* Converts proofs in supraseal-c2's in-memory layout (groth16_proof,
 * 384 bytes each: affine A, B, C in Montgomery form) to bellperson's
 * 192-byte encoding; out has room for 192 * num_proofs bytes. Points off
 * the curve or outside the subgroup are refused. */
cuzk_error cuzk_proof_compress(const void* proofs384, size_t num_proofs, uint8_t* out);

/* The library's status as one JSON object; NULL on failure. Release with
 * cuzk_free(). Keys are snake_case, durations in seconds (keys ending
 * _seconds), sizes in bytes (keys ending _bytes, or "bytes"), and lists are
 * [] when empty: version, metrics_listen (the bound address, "" when off),
 * circuits, parameter_sets, srs_cache (each with its bytes), uptime_seconds,
 * capacity (memory_budget_bytes, memory_free_bytes, queue by priority,
 * jobs_in_flight, partitions_waiting_for_memory, devices_healthy,
 * workers_healthy), jobs, devices (with healthy and error), memory,
 * throttle, finished. */
char* cuzk_status_json(void);

/* The library's Prometheus metrics in the text exposition format: the
 * engine's, cuzk_build_info, and the standard go_* and process_* ones;
 * NULL on failure. Release with cuzk_free(). */
char* cuzk_metrics_text(void);

/* Raises (non-zero) or lowers (0) the host's hold on the memory-bandwidth
 * throttle: while raised, synthesis yields between blocks of rows. */
void cuzk_set_throttle(int raised);

/* Releases memory the library allocated (messages, JSON, text). */
void cuzk_free(void* p);

#endif /* CUZK_NO_PROTOTYPES */

#ifdef __cplusplus
}
#endif

#endif /* CUZK_H */
