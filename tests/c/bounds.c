/* Misuse of every size argument of both headers at 2^40, 2^58, 2^62, 2^63
 * and 2^64-1, unknown flag bits, and timeouts too large for a duration.
 * Each case runs in its own child process (this program again, with the
 * case's index), so a crash or a hang fails that case and the table goes
 * on. A size case passes when the call returns a code other than 0 and
 * CUZK_ERR_INTERNAL with a message that names the argument and carries no
 * Go stack or source path; a timeout case passes when the proof comes back.
 * usage: bounds FIXTURE_DIR [CASE] */
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuzk.h"
#include "assignment.h"

extern char** environ;

static const char* dir;
static uint8_t *inputs, *aux;
static size_t ninputs, naux;

static void load_witness(void) {
    size_t len;
    inputs = read_file(dir, "inputs.bin", &len);
    ninputs = len / 32;
    aux = read_file(dir, "aux.bin", &len);
    naux = len / 32;
}

/* setup registers the fixture circuit "c" and loads its parameters. */
static void setup(void) {
    char r1cs[4096], params[4096];
    snprintf(r1cs, sizeof r1cs, "%s/c.r1cs", dir);
    snprintf(params, sizeof params, "%s/c.params", dir);
    cuzk_error e = cuzk_register_circuit("c", r1cs);
    if (e.code == 0) e = cuzk_load_params("c", params, 0);
    if (e.code != 0) {
        fprintf(stderr, "setup: code %d: %s\n", e.code, e.message);
        exit(3);
    }
    load_witness();
}

static int32_t witness_cb(void* user, size_t partition, uint8_t* in, size_t nin, uint8_t* ax, size_t nax) {
    (void)user; (void)partition;
    if (nin != ninputs || nax != naux) return 7;
    memcpy(in, inputs, 32 * nin);
    memcpy(ax, aux, 32 * nax);
    return 0;
}

/* A call's outcome, whichever header it comes from. */
typedef struct {
    int32_t code;
    char* message;
} outcome;

static outcome from_cuzk(cuzk_error e) { return (outcome){e.code, e.message}; }
static outcome from_rust(RustError e) { return (outcome){e.code, e.message}; }

/* ---- cuzk.h ---- */

/* A one-row, one-term matrix set over [ONE | x] (x·1 = x), then the case's
 * size written into one field. */
static outcome matrices(const char* field, uint64_t v) {
    static uint64_t rp[2] = {0, 1};
    static uint32_t col[1] = {1};
    static uint8_t coeff[32] = {1};
    static uint64_t big_rp[2];
    cuzk_matrix one = {rp, col, coeff};
    cuzk_matrices m = {.num_inputs = 1, .num_aux = 1, .num_constraints = 1, .a = one, .b = one, .c = one,
                       .flags = CUZK_FLAG_CANONICAL};
    if (!strcmp(field, "num_inputs")) m.num_inputs = v;
    if (!strcmp(field, "num_aux")) m.num_aux = v;
    if (!strcmp(field, "num_constraints")) m.num_constraints = v;
    if (!strcmp(field, "row_ptr")) {
        big_rp[0] = 0;
        big_rp[1] = v;
        m.b.row_ptr = big_rp;
    }
    if (!strcmp(field, "flags")) m.flags = (uint32_t)v;
    return from_cuzk(cuzk_register_circuit_matrices("m", &m));
}

enum { VIA_PROVE, VIA_SUBMIT };

static outcome request(const char* field, uint64_t v, int via, int callback) {
    setup();
    cuzk_witness w = {inputs, ninputs, aux, naux};
    cuzk_request req = {0};
    req.circuit_id = "c";
    req.num_partitions = 1;
    if (callback)
        req.witness_fn = witness_cb;
    else
        req.witnesses = &w;
    if (!strcmp(field, "num_partitions")) req.num_partitions = v;
    if (!strcmp(field, "num_inputs")) w.num_inputs = v;
    if (!strcmp(field, "num_aux")) w.num_aux = v;
    if (!strcmp(field, "flags")) req.flags = (uint32_t)v;
    cuzk_result res = {0};
    if (via == VIA_PROVE) {
        cuzk_error e = cuzk_prove(&req, &res);
        cuzk_result_free(&res);
        return from_cuzk(e);
    }
    uint64_t job;
    cuzk_error e = cuzk_submit(&req, &job);
    if (e.code == 0) {
        cuzk_cancel(job);
        return (outcome){0, NULL};
    }
    return from_cuzk(e);
}

static outcome verify(const char* field, uint64_t v) {
    setup();
    static uint8_t proofs[192], pub[32];
    size_t len = 192, npub = 1;
    uint32_t flags = 0;
    if (!strcmp(field, "proofs_len")) len = v;
    if (!strcmp(field, "num_public")) npub = v;
    if (!strcmp(field, "flags")) flags = (uint32_t)v;
    return from_cuzk(cuzk_verify("c", proofs, len, pub, npub, flags));
}

static outcome compress(const char* field, uint64_t v) {
    (void)field;
    static uint8_t in[384], out[192];
    return from_cuzk(cuzk_proof_compress(in, v, out));
}

static outcome load_params(const char* field, uint64_t v) {
    (void)field;
    char params[4096];
    snprintf(params, sizeof params, "%s/c.params", dir);
    return from_cuzk(cuzk_load_params("c", params, (uint32_t)v));
}

/* ---- supraseal_c2.h ---- */

static outcome supraseal(const char* field, uint64_t v, int start) {
    dumped f = load_dump(dir);
    char params[4096];
    snprintf(params, sizeof params, "%s/c.params", dir);
    SRS srs;
    RustError e = create_SRS(&srs, params, false);
    if (e.code != 0) {
        fprintf(stderr, "create_SRS: %s\n", e.message);
        exit(3);
    }
    Assignment x = dump_assignment(&f, f.a, f.b, f.c);
    size_t n = 1;
    struct { const char* name; size_t* at; } fields[] = {
        {"a_aux_bit_len", &x.a_aux_bit_len}, {"a_aux_popcount", &x.a_aux_popcount},
        {"b_inp_bit_len", &x.b_inp_bit_len}, {"b_inp_popcount", &x.b_inp_popcount},
        {"b_aux_bit_len", &x.b_aux_bit_len}, {"b_aux_popcount", &x.b_aux_popcount},
        {"abc_size", &x.abc_size}, {"inp_assignment_size", &x.inp_assignment_size},
        {"aux_assignment_size", &x.aux_assignment_size}, {"num_circuits", &n},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (!strcmp(field, fields[i].name)) *fields[i].at = v;
    fr_t r = {{0}}, s = {{0}};
    groth16_proof proof;
    if (start) {
        void* pending = NULL;
        e = generate_groth16_proofs_start_c(&x, n, &r, &s, &srs, NULL, -1, &pending);
        if (e.code == 0) destroy_pending_proof(pending);
    } else {
        e = generate_groth16_proofs_c(&x, n, &r, &s, &proof, &srs, NULL, -1);
    }
    drop_SRS(&srs);
    return from_rust(e);
}

/* ---- the table ---- */

typedef enum { SIZE, PARTITION, FLAG, TIMEOUT } kind;

typedef struct {
    const char* function;
    const char* argument; /* what the message must name */
    kind kind;
    outcome (*call)(const char* argument, uint64_t v, int variant);
    int variant;
} row;

static outcome call_matrices(const char* a, uint64_t v, int x) { (void)x; return matrices(a, v); }
static outcome call_request(const char* a, uint64_t v, int x) { return request(a, v, x & 1, x >> 1); }
static outcome call_verify(const char* a, uint64_t v, int x) { (void)x; return verify(a, v); }
static outcome call_compress(const char* a, uint64_t v, int x) { (void)x; return compress(a, v); }
static outcome call_load(const char* a, uint64_t v, int x) { (void)x; return load_params(a, v); }
static outcome call_supraseal(const char* a, uint64_t v, int x) { return supraseal(a, v, x); }

/* A timeout case proves the fixture with timeout_ms = v on the request
 * (variant 0), or awaits with timeout_ms = v (variant 1): the proof must
 * come back, neither a TIMEOUT nor an error. */
static outcome call_timeout(const char* a, uint64_t v, int x) {
    (void)a;
    setup();
    cuzk_request req = {0};
    req.circuit_id = "c";
    req.num_partitions = 1;
    req.witness_fn = witness_cb;
    if (x == 0) req.timeout_ms = v;
    uint64_t job;
    cuzk_error e = cuzk_submit(&req, &job);
    if (e.code != 0) return from_cuzk(e);
    cuzk_result res = {0};
    e = cuzk_await(job, x == 1 ? v : 0, &res);
    if (e.code == 0 && res.proofs_len != 192) e.code = -1;
    cuzk_result_free(&res);
    return from_cuzk(e);
}

#define PROVE_W (VIA_PROVE | 0 << 1)
#define PROVE_CB (VIA_PROVE | 1 << 1)
#define SUBMIT_W (VIA_SUBMIT | 0 << 1)
#define SUBMIT_CB (VIA_SUBMIT | 1 << 1)

static const row rows[] = {
    {"cuzk_register_circuit_matrices", "num_constraints", SIZE, call_matrices, 0},
    {"cuzk_register_circuit_matrices", "num_inputs", SIZE, call_matrices, 0},
    {"cuzk_register_circuit_matrices", "num_aux", SIZE, call_matrices, 0},
    {"cuzk_register_circuit_matrices", "row_ptr", SIZE, call_matrices, 0},
    {"cuzk_prove", "num_partitions", SIZE, call_request, PROVE_W},
    {"cuzk_prove", "num_partitions", SIZE, call_request, PROVE_CB},
    {"cuzk_submit", "num_partitions", SIZE, call_request, SUBMIT_W},
    {"cuzk_submit", "num_partitions", SIZE, call_request, SUBMIT_CB},
    {"cuzk_prove", "num_inputs", SIZE, call_request, PROVE_W},
    {"cuzk_prove", "num_aux", SIZE, call_request, PROVE_W},
    {"cuzk_submit", "num_inputs", SIZE, call_request, SUBMIT_W},
    {"cuzk_submit", "num_aux", SIZE, call_request, SUBMIT_W},
    {"cuzk_verify", "proofs_len", SIZE, call_verify, 0},
    {"cuzk_verify", "num_public", SIZE, call_verify, 0},
    {"cuzk_proof_compress", "num_proofs", SIZE, call_compress, 0},
    {"generate_groth16_proofs_c", "num_circuits", PARTITION, call_supraseal, 0},
    {"generate_groth16_proofs_c", "a_aux_bit_len", PARTITION, call_supraseal, 0},
    {"generate_groth16_proofs_c", "a_aux_popcount", PARTITION, call_supraseal, 0},
    {"generate_groth16_proofs_c", "b_inp_bit_len", PARTITION, call_supraseal, 0},
    {"generate_groth16_proofs_c", "b_inp_popcount", PARTITION, call_supraseal, 0},
    {"generate_groth16_proofs_c", "b_aux_bit_len", PARTITION, call_supraseal, 0},
    {"generate_groth16_proofs_c", "b_aux_popcount", PARTITION, call_supraseal, 0},
    {"generate_groth16_proofs_c", "abc_size", PARTITION, call_supraseal, 0},
    {"generate_groth16_proofs_c", "inp_assignment_size", PARTITION, call_supraseal, 0},
    {"generate_groth16_proofs_c", "aux_assignment_size", PARTITION, call_supraseal, 0},
    {"generate_groth16_proofs_start_c", "num_circuits", PARTITION, call_supraseal, 1},
    {"generate_groth16_proofs_start_c", "a_aux_bit_len", PARTITION, call_supraseal, 1},
    {"generate_groth16_proofs_start_c", "abc_size", PARTITION, call_supraseal, 1},
    {"cuzk_register_circuit_matrices", "flags", FLAG, call_matrices, 0},
    {"cuzk_prove", "flags", FLAG, call_request, PROVE_W},
    {"cuzk_load_params", "flags", FLAG, call_load, 0},
    {"cuzk_verify", "flags", FLAG, call_verify, 0},
    {"cuzk_request.timeout_ms", "timeout_ms", TIMEOUT, call_timeout, 0},
    {"cuzk_await", "timeout_ms", TIMEOUT, call_timeout, 1},
};

static const uint64_t sizes[] = {1ull << 40, 1ull << 58, 1ull << 62, 1ull << 63, UINT64_MAX};
/* A drop-in call's sizes are bounded by its SRS: also those near 2^27, a
 * 32 GiB PoRep partition's domain, which a real call passes (beyond this
 * fixture's key). Elsewhere a size that large may be a valid circuit's. */
static const uint64_t partition_sizes[] = {(1ull << 27) - 1, 1ull << 27, (1ull << 27) + 1,
                                           1ull << 40, 1ull << 58, 1ull << 62, 1ull << 63, UINT64_MAX};
/* Unknown bits: the lowest unused one and the highest. */
static const uint64_t flag_values[] = {4, 1ull << 31};
/* 2^63 ms and the smallest whole ms count whose nanoseconds pass 2^64. */
static const uint64_t timeouts[] = {1ull << 63, 18446744073710ull, UINT64_MAX};

static const uint64_t* values(kind k, size_t* n) {
    switch (k) {
    case SIZE: *n = sizeof sizes / sizeof sizes[0]; return sizes;
    case PARTITION: *n = sizeof partition_sizes / sizeof partition_sizes[0]; return partition_sizes;
    case FLAG: *n = sizeof flag_values / sizeof flag_values[0]; return flag_values;
    default: *n = sizeof timeouts / sizeof timeouts[0]; return timeouts;
    }
}

/* run_case is the child: one call, its verdict as the exit status
 * (0 pass, 1 fail). */
static int run_case(size_t r, size_t i) {
    const row* x = &rows[r];
    size_t n;
    uint64_t v = values(x->kind, &n)[i];
    alarm(60);
    outcome o = x->call(x->argument, v, x->variant);
    const char* msg = o.message ? o.message : "";
    int pass;
    if (x->kind == TIMEOUT) {
        pass = o.code == 0;
    } else {
        /* The flag case of cuzk_load_params must not name a path either. */
        pass = o.code != 0 && o.code != CUZK_ERR_INTERNAL && msg[0] && strstr(msg, x->argument) &&
               !strstr(msg, "goroutine") && !strstr(msg, ".go:");
    }
    printf("%-34s %-20s %-22llu code %2d %s%s\n", x->function, x->argument, (unsigned long long)v, o.code,
           pass ? "ok   " : "FAIL ", msg);
    fflush(stdout);
    free(o.message);
    return pass ? 0 : 1;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FIXTURE_DIR [ROW VALUE]\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    if (argc == 4) return run_case(strtoul(argv[2], NULL, 10), strtoul(argv[3], NULL, 10));
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        size_t n;
        values(rows[r].kind, &n);
        for (size_t i = 0; i < n; i++) {
            char rs[32], is[32];
            snprintf(rs, sizeof rs, "%zu", r);
            snprintf(is, sizeof is, "%zu", i);
            char* args[] = {argv[0], (char*)dir, rs, is, NULL};
            pid_t pid;
            int st;
            if (posix_spawn(&pid, argv[0], NULL, NULL, args, environ) != 0 || waitpid(pid, &st, 0) < 0) {
                perror("spawn");
                return 2;
            }
            if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
                passed++;
            } else {
                failed++;
                if (WIFSIGNALED(st))
                    printf("%-34s %-20s value #%zu: FAIL killed by signal %d%s\n", rows[r].function, rows[r].argument, i,
                           WTERMSIG(st), WTERMSIG(st) == SIGALRM ? " (hang)" : "");
                else if (WEXITSTATUS(st) != 1)
                    printf("%-34s %-20s value #%zu: FAIL exit %d\n", rows[r].function, rows[r].argument, i,
                           WEXITSTATUS(st));
            }
        }
    }
    return finish("bounds");
}
