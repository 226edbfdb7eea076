/* The child process of the robustness suite: runs one case through the C ABI
 * of build/libcuzk.so and reports how it ended by its exit status and one
 * line on stdout. tests/robustness/run.sh runs it under a timeout; a signal
 * or a timeout is judged there.
 *
 * usage: driver list                   the ABI misuse case ids
 *        driver abi CASE FIXTURE_DIR   one ABI misuse case
 *        driver params FILE FIXTURE_DIR  load FILE as parameters, prove the
 *                                        fixture's witness with them
 *        driver r1cs FILE FIXTURE_DIR    register FILE as the circuit, prove
 *        driver config FILE FIXTURE_DIR  give FILE's text to cuzk_config; a
 *                                        refusal must be CUZK_ERR_CONFIG, an
 *                                        accepted one must still prove right
 * (.wtns files go through the CLI only: the C ABI takes no witness file.)
 *
 * A proof returned under a mutated file or a misuse is checked with
 * cuzk_verify against the fixture's own parameters, loaded untouched as
 * circuit "ref": a proof that does not verify there is WRONG. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "cuzk.h"
#include "supraseal_c2.h"

/* Exit statuses (2 is left to the Go runtime's fatal errors). */
enum { ACCEPTED = 0, CLEAR = 3, WRONG = 4, UNCLEAR = 5, SETUP = 6 };

static const char* dir;
static uint8_t *inputs, *aux, *inputs_b, *aux_b, *a_, *b_, *c_, *ad, *bid, *bad_;
static size_t ninputs, naux, abc;
static char params_path[4096], r1cs_path[4096];

static uint8_t* slurp(const char* name, size_t* len) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE* f = fopen(path, "rb");
    if (!f) {
        printf("setup: %s: %s\n", path, strerror(errno));
        exit(SETUP);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t* buf = malloc(n > 0 ? (size_t)n : 1);
    if (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        printf("setup: short read of %s\n", path);
        exit(SETUP);
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static size_t meta(const char* key) {
    size_t len;
    char* js = (char*)slurp("assignment.json", &len);
    js = realloc(js, len + 1);
    js[len] = 0;
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    char* at = strstr(js, pat);
    if (!at) {
        printf("setup: assignment.json has no %s\n", key);
        exit(SETUP);
    }
    size_t v = strtoull(at + strlen(pat), NULL, 10);
    free(js);
    return v;
}

static void load_fixture(void) {
    size_t len;
    inputs = slurp("inputs.bin", &len);
    ninputs = len / 32;
    aux = slurp("aux.bin", &len);
    naux = len / 32;
    inputs_b = slurp("b/inputs.bin", &len);
    aux_b = slurp("b/aux.bin", &len);
    a_ = slurp("a.bin", &len);
    abc = len / 32;
    b_ = slurp("b.bin", &len);
    c_ = slurp("c.bin", &len);
    ad = slurp("a_aux_density.bin", &len);
    bid = slurp("b_inp_density.bin", &len);
    bad_ = slurp("b_aux_density.bin", &len);
    snprintf(params_path, sizeof params_path, "%s/c.params", dir);
    snprintf(r1cs_path, sizeof r1cs_path, "%s/c.r1cs", dir);
}

/* A message is clear when it says something and carries no Go stack or
 * source path. */
static int clear_message(const char* m) {
    return m && m[0] && !strstr(m, "goroutine ") && !strstr(m, ".go:") && !strstr(m, "panic");
}

/* judge reports an error the case expected: CLEAR, or UNCLEAR for
 * CUZK_ERR_INTERNAL and messages that are empty or leak a stack. */
static int judge(int32_t code, char* message, int go_alloc, const char* what) {
    int r;
    if (code == 0) {
        printf("wrong: %s: accepted (code 0) where an error was due\n", what);
        r = WRONG;
    } else if (code == CUZK_ERR_INTERNAL || !clear_message(message)) {
        printf("unclear: %s: code %d: %.200s\n", what, code, message ? message : "(no message)");
        r = UNCLEAR;
    } else {
        printf("clear: %s: code %d: %.200s\n", what, code, message);
        r = CLEAR;
    }
    if (message) {
        if (go_alloc)
            cuzk_free(message);
        else
            free(message);
    }
    return r;
}

static int err(cuzk_error e, const char* what) { return judge(e.code, e.message, 1, what); }
static int rerr(RustError e, const char* what) { return judge(e.code, e.message, 0, what); }

/* either accepts success or a clear error. */
static int either(cuzk_error e, const char* what) {
    if (e.code == 0) {
        printf("accepted: %s\n", what);
        return ACCEPTED;
    }
    return err(e, what);
}

static int must(cuzk_error e, const char* what) {
    if (e.code != 0) {
        printf("setup: %s: code %d: %s\n", what, e.code, e.message ? e.message : "");
        exit(SETUP);
    }
    return 0;
}

static void reference(void) {
    must(cuzk_register_circuit("ref", r1cs_path), "register ref");
    must(cuzk_load_params("ref", params_path, 0), "load ref");
}

/* checked verifies a returned result's proofs against "ref" and the given
 * inputs (with ONE first). */
static int checked(cuzk_result* res, const uint8_t* in, size_t n, const char* what) {
    if (res->proofs_len == 0 || res->proofs_len % 192) {
        printf("wrong: %s: %zu proof bytes\n", what, res->proofs_len);
        return WRONG;
    }
    size_t k = res->proofs_len / 192;
    uint8_t* pub = malloc(32 * (n - 1) * k + 1);
    for (size_t i = 0; i < k; i++) memcpy(pub + 32 * (n - 1) * i, in + 32, 32 * (n - 1));
    cuzk_error e = cuzk_verify("ref", res->proofs, res->proofs_len, pub, n - 1, 0);
    free(pub);
    cuzk_result_free(res);
    if (e.code != 0) {
        printf("wrong: %s: returned proof does not verify: code %d: %s\n", what, e.code, e.message ? e.message : "");
        cuzk_free(e.message);
        return WRONG;
    }
    printf("accepted: %s: proof verified\n", what);
    return ACCEPTED;
}

static cuzk_witness wit;
static cuzk_request request(const char* id) {
    wit = (cuzk_witness){inputs, ninputs, aux, naux};
    cuzk_request r;
    memset(&r, 0, sizeof r);
    r.circuit_id = id;
    r.num_partitions = 1;
    r.witnesses = &wit;
    return r;
}

/* must_prove proves a valid request: anything but a verified proof is WRONG. */
static int must_prove(cuzk_request* req, const char* what) {
    cuzk_result res;
    memset(&res, 0, sizeof res);
    cuzk_error e = cuzk_prove(req, &res);
    if (e.code != 0) {
        printf("wrong: %s: valid request refused: code %d: %.200s\n", what, e.code, e.message ? e.message : "");
        cuzk_free(e.message);
        return WRONG;
    }
    return checked(&res, inputs, ninputs, what);
}

/* prove_checked proves req and judges it: a verified proof, or an error. */
static int prove_checked(cuzk_request* req, const char* what) {
    cuzk_result res;
    memset(&res, 0, sizeof res);
    cuzk_error e = cuzk_prove(req, &res);
    if (e.code != 0) return err(e, what);
    return checked(&res, inputs, ninputs, what);
}

static int witness_ok(void* u, size_t p, uint8_t* in, size_t nin, uint8_t* ax, size_t nax) {
    (void)u;
    (void)p;
    if (nin != ninputs || nax != naux) return 1;
    memcpy(in, inputs, 32 * nin);
    memcpy(ax, aux, 32 * nax);
    return 0;
}

static int witness_slow(void* u, size_t p, uint8_t* in, size_t nin, uint8_t* ax, size_t nax) {
    usleep(300000);
    return witness_ok(u, p, in, nin, ax, nax);
}

/* submit_slow queues the fixture under a callback that takes 300 ms, so that
 * the job is still in flight for the next call. */
static uint64_t submit_slow(const char* request_id) {
    cuzk_request r = request("ref");
    r.witnesses = NULL;
    r.witness_fn = witness_slow;
    r.request_id = request_id;
    uint64_t job;
    must(cuzk_submit(&r, &job), "submit");
    return job;
}

/* submit_fixture queues the fixture's valid request. */
static uint64_t submit_fixture(void) {
    cuzk_request r = request("ref");
    uint64_t job;
    must(cuzk_submit(&r, &job), "submit");
    return job;
}

/* await_checked awaits a job and judges it: a verified proof, or an error. */
static int await_checked(uint64_t job, uint64_t timeout_ms, const char* what) {
    cuzk_result res;
    memset(&res, 0, sizeof res);
    cuzk_error e = cuzk_await(job, timeout_ms, &res);
    if (e.code != 0) return err(e, what);
    return checked(&res, inputs, ninputs, what);
}

/* drain awaits a job whose result the case does not judge. */
static void drain(uint64_t job) {
    cuzk_result res;
    cuzk_error e = cuzk_await(job, 0, &res);
    if (e.code == 0)
        cuzk_result_free(&res);
    else
        cuzk_free(e.message);
}

static Assignment assignment(void) {
    Assignment x;
    memset(&x, 0, sizeof x);
    x.a_aux_density = (const uint64_t*)ad;
    x.a_aux_bit_len = naux;
    x.a_aux_popcount = meta("a_aux_popcount");
    x.b_inp_density = (const uint64_t*)bid;
    x.b_inp_bit_len = ninputs;
    x.b_inp_popcount = meta("b_inp_popcount");
    x.b_aux_density = (const uint64_t*)bad_;
    x.b_aux_bit_len = naux;
    x.b_aux_popcount = meta("b_aux_popcount");
    x.a = (const fr_t*)a_;
    x.b = (const fr_t*)b_;
    x.c = (const fr_t*)c_;
    x.abc_size = abc;
    x.inp_assignment_data = (const fr_t*)inputs;
    x.inp_assignment_size = ninputs;
    x.aux_assignment_data = (const fr_t*)aux;
    x.aux_assignment_size = naux;
    return x;
}

/* Supraseal proofs are judged by compressing them and verifying with "ref". */
static int ss_checked(RustError e, const groth16_proof* p, size_t n, const char* what) {
    if (e.code != 0) return rerr(e, what);
    uint8_t* enc = malloc(192 * n);
    cuzk_error ce = cuzk_proof_compress(p, n, enc);
    if (ce.code != 0) {
        free(enc);
        printf("wrong: %s: returned proof does not compress: %s\n", what, ce.message ? ce.message : "");
        cuzk_free(ce.message);
        return WRONG;
    }
    size_t np = ninputs - 1;
    uint8_t* pub = malloc(32 * np * n + 1);
    for (size_t i = 0; i < n; i++) memcpy(pub + 32 * np * i, inputs + 32, 32 * np);
    ce = cuzk_verify("ref", enc, 192 * n, pub, np, 0);
    free(pub);
    free(enc);
    if (ce.code != 0) {
        printf("wrong: %s: returned proof does not verify: code %d\n", what, ce.code);
        cuzk_free(ce.message);
        return WRONG;
    }
    printf("accepted: %s: proof verified\n", what);
    return ACCEPTED;
}

static SRS good_srs(void) {
    SRS s = {0};
    RustError e = create_SRS(&s, params_path, false);
    if (e.code != 0) {
        printf("setup: create_SRS: %s\n", e.message ? e.message : "");
        exit(SETUP);
    }
    return s;
}

static fr_t R = {{1, 0, 0, 0}}, S = {{2, 0, 0, 0}};

static int ss_prove(Assignment* x, const char* what) {
    SRS s = good_srs();
    groth16_proof p;
    RustError e = generate_groth16_proofs_c(x, 1, &R, &S, &p, &s, NULL, -1);
    int r = ss_checked(e, &p, 1, what);
    drop_SRS(&s);
    return r;
}

static const char* mkfifo_at(const char* name) {
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s.%d", dir, name, (int)getpid());
    unlink(path);
    if (mkfifo(path, 0600) != 0) {
        printf("setup: mkfifo: %s\n", strerror(errno));
        exit(SETUP);
    }
    return path;
}

/* ---- the ABI misuse table ---- */

#define CASE(name) static int case_##name(void)

CASE(config_null) { return either(cuzk_config(NULL), "cuzk_config(NULL) means the defaults"); }
CASE(config_garbage) { return err(cuzk_config("{{{ not toml"), "cuzk_config garbage"); }
CASE(config_unknown_key) { return err(cuzk_config("no_such_key = 1"), "cuzk_config unknown key"); }
CASE(config_busy) {
    reference();
    uint64_t job = submit_slow(NULL);
    int v = err(cuzk_config(NULL), "cuzk_config with a job in flight");
    drain(job);
    return v;
}
CASE(register_null_id) { return err(cuzk_register_circuit(NULL, r1cs_path), "register NULL id"); }
CASE(register_null_path) { return err(cuzk_register_circuit("x", NULL), "register NULL path"); }
CASE(register_empty_id) { return err(cuzk_register_circuit("", r1cs_path), "register empty id"); }
CASE(register_missing) { return err(cuzk_register_circuit("x", "/nonexistent/c.r1cs"), "register missing file"); }
CASE(register_directory) { return err(cuzk_register_circuit("x", dir), "register a directory"); }
CASE(register_devnull) { return err(cuzk_register_circuit("x", "/dev/null"), "register /dev/null"); }
CASE(register_fifo) { return err(cuzk_register_circuit("x", mkfifo_at("r1cs.fifo")), "register a FIFO"); }
CASE(register_params_as_r1cs) { return err(cuzk_register_circuit("x", params_path), "register a params file"); }

static uint64_t rp[3];
static uint32_t col[2];
static uint8_t coeff[64];
static cuzk_matrices small_matrices(void) {
    /* One constraint: ONE * ONE = ONE over 1 input, 0 aux (canonical). */
    cuzk_matrices m;
    memset(&m, 0, sizeof m);
    rp[0] = 0;
    rp[1] = 1;
    col[0] = 0;
    memset(coeff, 0, sizeof coeff);
    coeff[0] = 1;
    m.num_inputs = 1;
    m.num_aux = 0;
    m.num_constraints = 1;
    m.a = m.b = m.c = (cuzk_matrix){rp, col, coeff};
    m.flags = CUZK_FLAG_CANONICAL;
    return m;
}
CASE(matrices_valid) { cuzk_matrices m = small_matrices(); return either(cuzk_register_circuit_matrices("m", &m), "register a 1-row matrix circuit"); }
CASE(matrices_null) { return err(cuzk_register_circuit_matrices("m", NULL), "register NULL matrices"); }
CASE(matrices_null_id) { cuzk_matrices m = small_matrices(); return err(cuzk_register_circuit_matrices(NULL, &m), "register matrices NULL id"); }
CASE(matrices_null_col) { cuzk_matrices m = small_matrices(); m.b.col = NULL; return err(cuzk_register_circuit_matrices("m", &m), "matrices NULL col"); }
CASE(matrices_null_coeff) { cuzk_matrices m = small_matrices(); m.c.coeff = NULL; return err(cuzk_register_circuit_matrices("m", &m), "matrices NULL coeff"); }
CASE(matrices_zero_inputs) { cuzk_matrices m = small_matrices(); m.num_inputs = 0; m.num_aux = 1; return err(cuzk_register_circuit_matrices("m", &m), "matrices num_inputs 0"); }
CASE(matrices_rowptr_huge) {
    cuzk_matrices m = small_matrices();
    static uint64_t big[2] = {0, (uint64_t)1 << 40};
    m.a.row_ptr = big;
    return err(cuzk_register_circuit_matrices("m", &m), "matrices row_ptr[n] = 2^40");
}
CASE(matrices_rowptr_decreasing) {
    cuzk_matrices m = small_matrices();
    static uint64_t dec[2] = {1, 0};
    m.a.row_ptr = dec;
    return err(cuzk_register_circuit_matrices("m", &m), "matrices row_ptr decreasing");
}
CASE(matrices_constraints_huge) { cuzk_matrices m = small_matrices(); m.num_constraints = (size_t)1 << 40; return err(cuzk_register_circuit_matrices("m", &m), "matrices num_constraints = 2^40"); }
CASE(matrices_aux_huge) { cuzk_matrices m = small_matrices(); m.num_aux = (size_t)1 << 62; return err(cuzk_register_circuit_matrices("m", &m), "matrices num_aux = 2^62"); }
CASE(matrices_col_range) { cuzk_matrices m = small_matrices(); static uint32_t c9[1] = {9}; m.a.col = c9; return err(cuzk_register_circuit_matrices("m", &m), "matrices column out of range"); }
CASE(matrices_coeff_field) { cuzk_matrices m = small_matrices(); static uint8_t ff[32]; memset(ff, 0xff, 32); m.a.coeff = ff; return err(cuzk_register_circuit_matrices("m", &m), "matrices coefficient out of field"); }
CASE(matrices_flags) { cuzk_matrices m = small_matrices(); m.flags = 0x80; return err(cuzk_register_circuit_matrices("m", &m), "matrices unknown flag bit"); }

CASE(load_null_id) { return err(cuzk_load_params(NULL, params_path, 0), "load NULL id"); }
CASE(load_null_path) { return err(cuzk_load_params("x", NULL, 0), "load NULL path"); }
CASE(load_missing) { return err(cuzk_load_params("x", "/nonexistent/c.params", 0), "load missing file"); }
CASE(load_directory) { return err(cuzk_load_params("x", dir, 0), "load a directory"); }
CASE(load_devnull) { return err(cuzk_load_params("x", "/dev/null", 0), "load /dev/null"); }
CASE(load_fifo) { return err(cuzk_load_params("x", mkfifo_at("params.fifo"), 0), "load a FIFO"); }
CASE(load_unknown_flags) { return err(cuzk_load_params("x", params_path, 0x80), "load unknown flag bit"); }
CASE(load_r1cs_as_params) { return err(cuzk_load_params("x", r1cs_path, 0), "load an r1cs as params"); }
CASE(load_twice) {
    reference();
    must(cuzk_load_params("ref", params_path, 0), "load again");
    cuzk_request r = request("ref");
    return must_prove(&r, "prove after loading twice");
}
CASE(evict_unknown) { return err(cuzk_evict_params("never-loaded"), "evict unknown circuit"); }
CASE(evict_null) { return err(cuzk_evict_params(NULL), "evict NULL"); }
CASE(evict_twice) {
    reference();
    must(cuzk_evict_params("ref"), "evict");
    return err(cuzk_evict_params("ref"), "evict twice");
}
CASE(prove_after_evict) {
    reference();
    must(cuzk_register_circuit("e", r1cs_path), "register e");
    must(cuzk_load_params("e", params_path, 0), "load e");
    must(cuzk_evict_params("e"), "evict e");
    cuzk_request r = request("e");
    return prove_checked(&r, "prove after evict");
}

CASE(prove_valid) { reference(); cuzk_request r = request("ref"); return must_prove(&r, "prove the fixture"); }
CASE(prove_null_req) { cuzk_result res; return err(cuzk_prove(NULL, &res), "prove NULL request"); }
CASE(prove_null_out) { reference(); cuzk_request r = request("ref"); return err(cuzk_prove(&r, NULL), "prove NULL result"); }
CASE(prove_null_circuit) { reference(); cuzk_request r = request(NULL); return prove_checked(&r, "prove NULL circuit_id"); }
CASE(prove_unknown_circuit) { reference(); cuzk_request r = request("nope"); return prove_checked(&r, "prove unknown circuit"); }
CASE(prove_zero_partitions) { reference(); cuzk_request r = request("ref"); r.num_partitions = 0; return prove_checked(&r, "prove 0 partitions"); }
CASE(prove_no_witness) { reference(); cuzk_request r = request("ref"); r.witnesses = NULL; return prove_checked(&r, "prove without witnesses or callback"); }
CASE(prove_partitions_huge_fn) {
    reference();
    cuzk_request r = request("ref");
    r.witnesses = NULL;
    r.witness_fn = witness_ok;
    r.num_partitions = (size_t)1 << 62;
    return prove_checked(&r, "prove 2^62 partitions with a callback");
}
CASE(prove_partitions_huge) { reference(); cuzk_request r = request("ref"); r.num_partitions = (size_t)1 << 60; return prove_checked(&r, "prove 2^60 partitions, one witness"); }
CASE(prove_inputs_huge) { reference(); cuzk_request r = request("ref"); wit.num_inputs = (size_t)1 << 60; return prove_checked(&r, "prove num_inputs 2^60"); }
CASE(prove_aux_huge) { reference(); cuzk_request r = request("ref"); wit.num_aux = SIZE_MAX; return prove_checked(&r, "prove num_aux SIZE_MAX"); }
CASE(prove_aux_short) { reference(); cuzk_request r = request("ref"); wit.num_aux = naux - 1; return prove_checked(&r, "prove num_aux - 1"); }
CASE(prove_inputs_null) { reference(); cuzk_request r = request("ref"); wit.inputs = NULL; return prove_checked(&r, "prove NULL inputs"); }
CASE(prove_aux_null) { reference(); cuzk_request r = request("ref"); wit.aux = NULL; return prove_checked(&r, "prove NULL aux"); }
CASE(prove_out_of_field) {
    reference();
    cuzk_request r = request("ref");
    uint8_t* bad = malloc(32 * naux);
    memcpy(bad, aux, 32 * naux);
    memset(bad, 0xff, 32);
    wit.aux = bad;
    return prove_checked(&r, "prove an aux element outside the field");
}
CASE(prove_wrong_witness) {
    reference();
    cuzk_request r = request("ref");
    uint8_t* bad = malloc(32 * naux);
    memcpy(bad, aux, 32 * naux);
    bad[32 * (naux - 1)] ^= 1;
    wit.aux = bad;
    return prove_checked(&r, "prove an unsatisfying witness");
}
CASE(prove_unknown_flags) { reference(); cuzk_request r = request("ref"); r.flags = 0x100; return prove_checked(&r, "prove unknown flag bit"); }
CASE(prove_r_without_s) { reference(); cuzk_request r = request("ref"); static uint8_t rr[32] = {1}; r.r = rr; return prove_checked(&r, "prove r without s"); }
CASE(prove_priority_huge) { reference(); cuzk_request r = request("ref"); r.priority = 1000000; return prove_checked(&r, "prove priority 10^6"); }
CASE(prove_timeout_huge) { reference(); cuzk_request r = request("ref"); r.timeout_ms = (uint64_t)1 << 63; return must_prove(&r, "prove timeout_ms 2^63"); }
CASE(prove_timeout_wrap) { reference(); cuzk_request r = request("ref"); r.timeout_ms = 18446744073710ull; return must_prove(&r, "prove timeout_ms 18446744073710"); }
CASE(prove_timeout_max) { reference(); cuzk_request r = request("ref"); r.timeout_ms = UINT64_MAX; return must_prove(&r, "prove timeout_ms UINT64_MAX"); }
static int failing_fn(void* u, size_t p, uint8_t* in, size_t nin, uint8_t* ax, size_t nax) {
    (void)u; (void)p; (void)in; (void)nin; (void)ax; (void)nax;
    return 7;
}
CASE(prove_callback_fails) { reference(); cuzk_request r = request("ref"); r.witnesses = NULL; r.witness_fn = failing_fn; return prove_checked(&r, "prove with a failing callback"); }
CASE(prove_duplicate_request_id) {
    reference();
    uint64_t j1 = submit_slow("dup"), j2;
    cuzk_request r = request("ref");
    r.request_id = "dup";
    int v = err(cuzk_submit(&r, &j2), "submit a request id in flight");
    drain(j1);
    return v;
}

CASE(submit_null_job) { reference(); cuzk_request r = request("ref"); return err(cuzk_submit(&r, NULL), "submit NULL job_out"); }
CASE(submit_null_req) { uint64_t j; return err(cuzk_submit(NULL, &j), "submit NULL request"); }
CASE(await_zero) { cuzk_result res; return err(cuzk_await(0, 100, &res), "await handle 0"); }
CASE(await_foreign) { cuzk_result res; return err(cuzk_await(0xdeadbeefcafeull, 100, &res), "await a handle never issued"); }
CASE(await_null_out) {
    reference();
    return err(cuzk_await(submit_fixture(), 0, NULL), "await NULL result");
}
CASE(await_twice) {
    reference();
    uint64_t j = submit_fixture();
    int v = await_checked(j, 0, "first await");
    if (v != ACCEPTED) return v;
    cuzk_result res;
    return err(cuzk_await(j, 100, &res), "await a consumed handle");
}
CASE(await_timeout_then_again) {
    reference();
    uint64_t j = submit_slow(NULL);
    cuzk_result res;
    memset(&res, 0, sizeof res);
    cuzk_error e = cuzk_await(j, 1, &res);
    if (e.code != CUZK_ERR_TIMEOUT) {
        if (e.code == 0) return checked(&res, inputs, ninputs, "await 1 ms");
        return err(e, "await 1 ms (expected TIMEOUT)");
    }
    cuzk_free(e.message);
    return await_checked(j, 0, "await after a timeout");
}
CASE(await_timeout_huge) {
    reference();
    return await_checked(submit_fixture(), UINT64_MAX, "await timeout UINT64_MAX");
}
CASE(cancel_unknown) { return err(cuzk_cancel(0xabcdef1234ull), "cancel a handle never issued"); }
CASE(cancel_twice) {
    reference();
    uint64_t j = submit_slow(NULL);
    cuzk_error e = cuzk_cancel(j);
    cuzk_free(e.message);
    e = cuzk_cancel(j);
    int v = either(e, "cancel twice");
    cuzk_result res;
    memset(&res, 0, sizeof res);
    e = cuzk_await(j, 0, &res);
    if (e.code == 0) return checked(&res, inputs, ninputs, "await a cancelled job");
    int w = err(e, "await a cancelled job");
    return v != ACCEPTED && v != CLEAR ? v : w;
}
CASE(cancel_after_await) {
    reference();
    uint64_t j = submit_fixture();
    drain(j);
    return err(cuzk_cancel(j), "cancel a consumed handle");
}
/* A job left unawaited across cuzk_config must not hand
 * out another job's proof under its handle. */
CASE(handle_across_config) {
    reference();
    uint64_t ja = submit_fixture(), jb;
    usleep(500000); /* A finishes, unawaited */
    cuzk_error e = cuzk_config(NULL);
    if (e.code != 0) return either(e, "cuzk_config after A finished");
    must(cuzk_register_circuit("ref", r1cs_path), "register ref again");
    must(cuzk_load_params("ref", params_path, 0), "load ref again");
    cuzk_witness wb = {inputs_b, ninputs, aux_b, naux};
    cuzk_request rb = request("ref");
    rb.witnesses = &wb;
    must(cuzk_submit(&rb, &jb), "submit B");
    int v = await_checked(ja, 0, "await A after reconfiguring (A's statement)");
    drain(jb);
    return v;
}
CASE(result_free_null) { cuzk_result_free(NULL); printf("accepted: cuzk_result_free(NULL)\n"); return ACCEPTED; }
CASE(result_free_twice) {
    reference();
    cuzk_request r = request("ref");
    cuzk_result res;
    cuzk_error e = cuzk_prove(&r, &res);
    if (e.code != 0) return err(e, "prove");
    cuzk_result_free(&res);
    cuzk_result_free(&res);
    printf("accepted: cuzk_result_free twice (it zeroes the result)\n");
    return ACCEPTED;
}
CASE(free_null) { cuzk_free(NULL); printf("accepted: cuzk_free(NULL)\n"); return ACCEPTED; }

static int verify_case(const uint8_t* proofs, size_t len, const uint8_t* pub, size_t npub, uint32_t flags, const char* what) {
    reference();
    return err(cuzk_verify("ref", proofs, len, pub, npub, flags), what);
}
static uint8_t zeros[4096];
CASE(verify_null_proofs) { return verify_case(NULL, 192, inputs + 32, ninputs - 1, 0, "verify NULL proofs"); }
CASE(verify_len_odd) { return verify_case(zeros, 191, inputs + 32, ninputs - 1, 0, "verify 191 proof bytes"); }
CASE(verify_len_zero) { return verify_case(zeros, 0, inputs + 32, ninputs - 1, 0, "verify 0 proof bytes"); }
CASE(verify_garbage) { static uint8_t g[192]; memset(g, 0xa5, sizeof g); return verify_case(g, 192, inputs + 32, ninputs - 1, 0, "verify garbage proof"); }
CASE(verify_zero_proof) { return verify_case(zeros, 192, inputs + 32, ninputs - 1, 0, "verify all-zero proof"); }
CASE(verify_npub_wrong) { return verify_case(zeros, 192, inputs + 32, ninputs, 0, "verify num_public + 1"); }
CASE(verify_npub_huge) { return verify_case(zeros, 192, inputs + 32, (size_t)1 << 58, 0, "verify num_public 2^58"); }
CASE(verify_len_huge) { return verify_case(zeros, (size_t)192 << 56, inputs + 32, ninputs - 1, 0, "verify proofs_len 192*2^56"); }
CASE(verify_null_public) { return verify_case(zeros, 192, NULL, ninputs - 1, 0, "verify NULL public inputs"); }
CASE(verify_unknown_circuit) { return err(cuzk_verify("nope", zeros, 192, inputs + 32, ninputs - 1, 0), "verify unknown circuit"); }
CASE(verify_unknown_flags) { return verify_case(zeros, 192, inputs + 32, ninputs - 1, 0x40, "verify unknown flag bit"); }
CASE(compress_null) { static uint8_t o[192]; return err(cuzk_proof_compress(NULL, 1, o), "compress NULL proofs"); }
CASE(compress_null_out) { static uint8_t p[384]; return err(cuzk_proof_compress(p, 1, NULL), "compress NULL out"); }
CASE(compress_garbage) { static uint8_t p[384], o[192]; memset(p, 0x5a, sizeof p); return err(cuzk_proof_compress(p, 1, o), "compress points off the curve"); }
CASE(compress_huge) { static uint8_t p[384], o[192]; return err(cuzk_proof_compress(p, (size_t)1 << 58, o), "compress num_proofs 2^58"); }
CASE(status_and_metrics) {
    char* s = cuzk_status_json();
    char* m = cuzk_metrics_text();
    int ok = s && m;
    cuzk_free(s);
    cuzk_free(m);
    cuzk_set_throttle(5);
    cuzk_set_throttle(0);
    cuzk_set_throttle(0);
    printf("%s: status, metrics, throttle toggles\n", ok ? "accepted" : "wrong");
    return ok ? ACCEPTED : WRONG;
}

/* supraseal-c2 drop-in */
CASE(srs_null_ret) { return rerr(create_SRS(NULL, params_path, false), "create_SRS NULL ret"); }
CASE(srs_null_path) { SRS s = {0}; return rerr(create_SRS(&s, NULL, false), "create_SRS NULL path"); }
CASE(srs_missing) { SRS s = {0}; return rerr(create_SRS(&s, "/nonexistent/p", true), "create_SRS missing file"); }
CASE(srs_fifo) { SRS s = {0}; return rerr(create_SRS(&s, mkfifo_at("srs.fifo"), false), "create_SRS a FIFO"); }
CASE(srs_r1cs) { SRS s = {0}; return rerr(create_SRS(&s, r1cs_path, false), "create_SRS an r1cs file"); }
CASE(srs_drop_null) { drop_SRS(NULL); SRS z = {0}; drop_SRS(&z); evict_SRS(NULL); evict_SRS(&z); printf("accepted: drop/evict NULL and empty SRS\n"); return ACCEPTED; }
CASE(srs_drop_twice) {
    SRS s = good_srs();
    SRS copy = s;
    drop_SRS(&s);
    drop_SRS(&copy); /* the same reference again, through a stale copy */
    printf("accepted: drop_SRS twice through a stale copy\n");
    return ACCEPTED;
}
CASE(srs_use_after_drop) {
    reference();
    SRS s = good_srs();
    SRS copy = s;
    drop_SRS(&s);
    Assignment x = assignment();
    groth16_proof p;
    return ss_checked(generate_groth16_proofs_c(&x, 1, &R, &S, &p, &copy, NULL, -1), &p, 1, "prove with a dropped SRS");
}
CASE(srs_foreign) {
    reference();
    static uint64_t junk[16] = {0x1234};
    SRS f = {junk};
    SRS c = clone_SRS(&f);
    evict_SRS(&f);
    drop_SRS(&c);
    Assignment x = assignment();
    groth16_proof p;
    return ss_checked(generate_groth16_proofs_c(&x, 1, &R, &S, &p, &f, NULL, -1), &p, 1, "prove with a foreign SRS");
}
CASE(srs_clone_null) { SRS c = clone_SRS(NULL); printf("%s: clone_SRS(NULL)\n", c.ptr ? "wrong" : "accepted"); return c.ptr ? WRONG : ACCEPTED; }
CASE(gen_valid) { reference(); Assignment x = assignment(); return ss_prove(&x, "generate the fixture"); }
CASE(gen_null_provers) {
    reference();
    SRS s = good_srs();
    groth16_proof p;
    return rerr(generate_groth16_proofs_c(NULL, 1, &R, &S, &p, &s, NULL, -1), "generate NULL provers");
}
CASE(gen_null_proofs) {
    reference();
    SRS s = good_srs();
    Assignment x = assignment();
    return rerr(generate_groth16_proofs_c(&x, 1, &R, &S, NULL, &s, NULL, -1), "generate NULL proofs");
}
CASE(gen_null_rs) {
    reference();
    SRS s = good_srs();
    Assignment x = assignment();
    groth16_proof p;
    return rerr(generate_groth16_proofs_c(&x, 1, NULL, NULL, &p, &s, NULL, -1), "generate NULL r_s, s_s");
}
CASE(gen_null_srs) {
    Assignment x = assignment();
    groth16_proof p;
    return rerr(generate_groth16_proofs_c(&x, 1, &R, &S, &p, NULL, NULL, -1), "generate NULL srs");
}
CASE(gen_zero_circuits) {
    reference();
    SRS s = good_srs();
    Assignment x = assignment();
    groth16_proof p;
    RustError e = generate_groth16_proofs_c(&x, 0, &R, &S, &p, &s, NULL, -1);
    if (e.code == 0) { printf("accepted: generate 0 circuits\n"); return ACCEPTED; }
    return rerr(e, "generate 0 circuits");
}
CASE(gen_circuits_huge) {
    reference();
    SRS s = good_srs();
    Assignment x = assignment();
    groth16_proof p;
    return rerr(generate_groth16_proofs_c(&x, (size_t)1 << 60, &R, &S, &p, &s, NULL, -1), "generate num_circuits 2^60");
}
CASE(gen_gpu_index) {
    reference();
    SRS s = good_srs();
    Assignment x = assignment();
    groth16_proof p;
    return rerr(generate_groth16_proofs_c(&x, 1, &R, &S, &p, &s, NULL, 1000), "generate gpu_index 1000");
}
CASE(gen_gpu_index_neg) {
    reference();
    SRS s = good_srs();
    Assignment x = assignment();
    groth16_proof p;
    return rerr(generate_groth16_proofs_c(&x, 1, &R, &S, &p, &s, NULL, -7), "generate gpu_index -7");
}
CASE(gen_foreign_mutex) {
    reference();
    SRS s = good_srs();
    Assignment x = assignment();
    groth16_proof p;
    static int m;
    return rerr(generate_groth16_proofs_c(&x, 1, &R, &S, &p, &s, &m, -1), "generate foreign gpu_mtx");
}
CASE(gen_destroyed_mutex) {
    reference();
    SRS s = good_srs();
    Assignment x = assignment();
    groth16_proof p;
    void* m = create_gpu_mutex();
    destroy_gpu_mutex(m);
    RustError e = generate_groth16_proofs_c(&x, 1, &R, &S, &p, &s, m, -1);
    if (e.code == 0) return ss_checked(e, &p, 1, "generate with a destroyed gpu_mtx");
    return rerr(e, "generate with a destroyed gpu_mtx");
}
CASE(mutex_destroy_twice) {
    void* m = create_gpu_mutex();
    destroy_gpu_mutex(m);
    destroy_gpu_mutex(m);
    destroy_gpu_mutex(NULL);
    printf("accepted: destroy_gpu_mutex twice and NULL\n");
    return ACCEPTED;
}
#define ASSIGN_CASE(name, stmt, what)                  \
    CASE(name) {                                       \
        reference();                                   \
        Assignment x = assignment();                   \
        stmt;                                          \
        return ss_prove(&x, what);                     \
    }
ASSIGN_CASE(asg_bitlen_2e40, x.a_aux_bit_len = (size_t)1 << 40, "a_aux_bit_len 2^40")
ASSIGN_CASE(asg_bitlen_2e62, x.b_aux_bit_len = (size_t)1 << 62, "b_aux_bit_len 2^62")
ASSIGN_CASE(asg_inp_bitlen_huge, x.b_inp_bit_len = SIZE_MAX, "b_inp_bit_len SIZE_MAX")
ASSIGN_CASE(asg_bitlen_short, x.a_aux_bit_len = naux - 1, "a_aux_bit_len - 1")
ASSIGN_CASE(asg_popcount_wrong, x.b_aux_popcount += 1, "b_aux_popcount + 1")
ASSIGN_CASE(asg_popcount_huge, x.a_aux_popcount = (size_t)1 << 61, "a_aux_popcount 2^61")
ASSIGN_CASE(asg_abc_huge, x.abc_size = (size_t)1 << 59, "abc_size 2^59")
ASSIGN_CASE(asg_abc_zero, x.abc_size = 0, "abc_size 0")
ASSIGN_CASE(asg_inp_size_huge, x.inp_assignment_size = (size_t)1 << 58, "inp_assignment_size 2^58")
ASSIGN_CASE(asg_aux_size_huge, x.aux_assignment_size = (size_t)1 << 58, "aux_assignment_size 2^58")
ASSIGN_CASE(asg_null_density, x.a_aux_density = NULL, "NULL a_aux_density")
ASSIGN_CASE(asg_null_abc, x.b = NULL, "NULL b")
ASSIGN_CASE(asg_null_aux, x.aux_assignment_data = NULL, "NULL aux_assignment_data")

static void* start_valid(void) {
    SRS s = good_srs();
    Assignment x = assignment();
    void* pending = NULL;
    RustError e = generate_groth16_proofs_start_c(&x, 1, &R, &S, &s, NULL, -1, &pending);
    if (e.code != 0) {
        printf("setup: start: %s\n", e.message ? e.message : "");
        exit(SETUP);
    }
    return pending;
}
CASE(start_null_pending_out) {
    reference();
    SRS s = good_srs();
    Assignment x = assignment();
    return rerr(generate_groth16_proofs_start_c(&x, 1, &R, &S, &s, NULL, -1, NULL), "start NULL pending_out");
}
CASE(finalize_null) { groth16_proof p; return rerr(finalize_groth16_proof_c(NULL, &p), "finalize NULL"); }
CASE(finalize_null_proofs) {
    reference();
    void* h = start_valid();
    return rerr(finalize_groth16_proof_c(h, NULL), "finalize NULL proofs");
}
CASE(finalize_foreign) { static uint64_t junk[8] = {42}; groth16_proof p; return rerr(finalize_groth16_proof_c(junk, &p), "finalize a foreign pointer"); }
CASE(finalize_twice) {
    reference();
    void* h = start_valid();
    groth16_proof p;
    int v = ss_checked(finalize_groth16_proof_c(h, &p), &p, 1, "first finalize");
    if (v != ACCEPTED) return v;
    return rerr(finalize_groth16_proof_c(h, &p), "finalize twice");
}
CASE(finalize_after_destroy) {
    reference();
    void* h = start_valid();
    destroy_pending_proof(h);
    groth16_proof p;
    return rerr(finalize_groth16_proof_c(h, &p), "finalize after destroy");
}
CASE(destroy_twice) {
    reference();
    void* h = start_valid();
    destroy_pending_proof(h);
    destroy_pending_proof(h);
    printf("accepted: destroy_pending_proof twice\n");
    return ACCEPTED;
}
CASE(destroy_after_finalize) {
    reference();
    void* h = start_valid();
    groth16_proof p;
    int v = ss_checked(finalize_groth16_proof_c(h, &p), &p, 1, "finalize");
    destroy_pending_proof(h);
    destroy_pending_proof(NULL);
    static uint64_t junk[8] = {42};
    destroy_pending_proof(junk);
    if (v == ACCEPTED) printf("accepted: destroy after finalize, NULL and foreign\n");
    return v;
}

static const struct {
    const char* name;
    int (*run)(void);
} cases[] = {
#define C(n) {#n, case_##n}
    C(config_null), C(config_garbage), C(config_unknown_key), C(config_busy),
    C(register_null_id), C(register_null_path), C(register_empty_id), C(register_missing),
    C(register_directory), C(register_devnull), C(register_fifo), C(register_params_as_r1cs),
    C(matrices_valid), C(matrices_null), C(matrices_null_id), C(matrices_null_col), C(matrices_null_coeff),
    C(matrices_zero_inputs), C(matrices_rowptr_huge), C(matrices_rowptr_decreasing), C(matrices_constraints_huge),
    C(matrices_aux_huge), C(matrices_col_range), C(matrices_coeff_field), C(matrices_flags),
    C(load_null_id), C(load_null_path), C(load_missing), C(load_directory), C(load_devnull), C(load_fifo),
    C(load_unknown_flags), C(load_r1cs_as_params), C(load_twice), C(evict_unknown), C(evict_null),
    C(evict_twice), C(prove_after_evict),
    C(prove_valid), C(prove_null_req), C(prove_null_out), C(prove_null_circuit), C(prove_unknown_circuit),
    C(prove_zero_partitions), C(prove_no_witness), C(prove_partitions_huge_fn), C(prove_partitions_huge),
    C(prove_inputs_huge), C(prove_aux_huge), C(prove_aux_short), C(prove_inputs_null), C(prove_aux_null),
    C(prove_out_of_field), C(prove_wrong_witness), C(prove_unknown_flags), C(prove_r_without_s),
    C(prove_priority_huge), C(prove_timeout_huge), C(prove_timeout_wrap), C(prove_timeout_max),
    C(prove_callback_fails), C(prove_duplicate_request_id),
    C(submit_null_job), C(submit_null_req), C(await_zero), C(await_foreign), C(await_null_out), C(await_twice),
    C(await_timeout_then_again), C(await_timeout_huge), C(cancel_unknown), C(cancel_twice), C(cancel_after_await),
    C(handle_across_config), C(result_free_null), C(result_free_twice), C(free_null),
    C(verify_null_proofs), C(verify_len_odd), C(verify_len_zero), C(verify_garbage), C(verify_zero_proof),
    C(verify_npub_wrong), C(verify_npub_huge), C(verify_len_huge), C(verify_null_public),
    C(verify_unknown_circuit), C(verify_unknown_flags),
    C(compress_null), C(compress_null_out), C(compress_garbage), C(compress_huge), C(status_and_metrics),
    C(srs_null_ret), C(srs_null_path), C(srs_missing), C(srs_fifo), C(srs_r1cs), C(srs_drop_null),
    C(srs_drop_twice), C(srs_use_after_drop), C(srs_foreign), C(srs_clone_null),
    C(gen_valid), C(gen_null_provers), C(gen_null_proofs), C(gen_null_rs), C(gen_null_srs), C(gen_zero_circuits),
    C(gen_circuits_huge), C(gen_gpu_index), C(gen_gpu_index_neg), C(gen_foreign_mutex), C(gen_destroyed_mutex),
    C(mutex_destroy_twice),
    C(asg_bitlen_2e40), C(asg_bitlen_2e62), C(asg_inp_bitlen_huge), C(asg_bitlen_short), C(asg_popcount_wrong),
    C(asg_popcount_huge), C(asg_abc_huge), C(asg_abc_zero), C(asg_inp_size_huge), C(asg_aux_size_huge),
    C(asg_null_density), C(asg_null_abc), C(asg_null_aux),
    C(start_null_pending_out), C(finalize_null), C(finalize_null_proofs), C(finalize_foreign), C(finalize_twice),
    C(finalize_after_destroy), C(destroy_twice), C(destroy_after_finalize),
#undef C
};

/* The file cases: a mutated params or r1cs file through the C ABI. */
static int file_case(const char* kind, const char* file) {
    reference();
    cuzk_error e;
    if (strcmp(kind, "params") == 0) {
        must(cuzk_register_circuit("m", r1cs_path), "register m");
        e = cuzk_load_params("m", file, 0);
        if (e.code != 0) return err(e, "load mutated params");
    } else {
        e = cuzk_register_circuit("m", file);
        if (e.code != 0) return err(e, "register mutated r1cs");
        e = cuzk_load_params("m", params_path, 0);
        if (e.code != 0) return err(e, "load params for the mutated r1cs");
    }
    cuzk_request r = request("m");
    return prove_checked(&r, "prove with the mutated file");
}

/* The config case: a hostile or edge-valued configuration text. */
static int config_case(const char* file) {
    FILE* f = fopen(file, "rb");
    if (!f) {
        printf("setup: %s: %s\n", file, strerror(errno));
        return SETUP;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* text = malloc((size_t)n + 1);
    if (n > 0 && fread(text, 1, (size_t)n, f) != (size_t)n) {
        printf("setup: short read of %s\n", file);
        return SETUP;
    }
    fclose(f);
    text[n] = 0;
    cuzk_error e = cuzk_config(text);
    free(text);
    if (e.code != 0) {
        if (e.code != CUZK_ERR_CONFIG) {
            printf("unclear: cuzk_config: code %d, not CUZK_ERR_CONFIG: %.200s\n", e.code, e.message ? e.message : "");
            cuzk_free(e.message);
            return UNCLEAR;
        }
        if (e.message && strlen(e.message) > 4096) {
            printf("unclear: cuzk_config: a message of %zu bytes: %.200s\n", strlen(e.message), e.message);
            cuzk_free(e.message);
            return UNCLEAR;
        }
        return err(e, "cuzk_config");
    }
    reference();
    /* A valid request may be refused (a budget too small for it), but a
     * proof that fails verification is the configuration breaking the
     * prover (throttle.check_rows = 2^63-1 once skipped the mat-vec). */
    cuzk_request r = request("ref");
    cuzk_result res;
    memset(&res, 0, sizeof res);
    e = cuzk_prove(&r, &res);
    if (e.code == CUZK_ERR_NOT_VERIFIED) {
        printf("wrong: prove under the accepted configuration: code %d: %.200s\n", e.code, e.message ? e.message : "");
        cuzk_free(e.message);
        return WRONG;
    }
    if (e.code != 0) return err(e, "prove under the accepted configuration");
    int v = checked(&res, inputs, ninputs, "prove under the accepted configuration");
    if (v != ACCEPTED) return v;
    /* An unsatisfying witness must still be refused (with verify_proofs
     * off, nothing else would catch a skipped evaluation). */
    uint8_t* bad = malloc(32 * naux);
    memcpy(bad, aux, 32 * naux);
    bad[32 * (naux / 2)] ^= 1;
    cuzk_witness bw = {inputs, ninputs, bad, naux};
    r.witnesses = &bw;
    memset(&res, 0, sizeof res);
    e = cuzk_prove(&r, &res);
    free(bad);
    if (e.code == 0) {
        cuzk_result_free(&res);
        printf("wrong: an unsatisfying witness proved under the accepted configuration\n");
        return WRONG;
    }
    cuzk_free(e.message);
    printf("accepted: the configuration proves right and refuses an unsatisfying witness\n");
    return ACCEPTED;
}

int main(int argc, char** argv) {
    size_t ncases = sizeof cases / sizeof cases[0];
    if (argc == 2 && strcmp(argv[1], "list") == 0) {
        for (size_t i = 0; i < ncases; i++) printf("%s\n", cases[i].name);
        return 0;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: %s list | abi CASE DIR | params FILE DIR | r1cs FILE DIR | config FILE DIR\n", argv[0]);
        return SETUP;
    }
    dir = argv[3];
    load_fixture();
    /* Keep the validation record inside the fixture. */
    char cfg[4500];
    snprintf(cfg, sizeof cfg, "[srs]\nvalidation_record_dir = \"%s/record\"\n", dir);
    if (strcmp(argv[1], "config") == 0) {
        int r = config_case(argv[2]);
        fflush(stdout);
        return r;
    }
    if (strcmp(argv[1], "abi") != 0 || strncmp(argv[2], "config_", 7) != 0) must(cuzk_config(cfg), "config");
    fflush(stdout);
    int r;
    if (strcmp(argv[1], "abi") == 0) {
        for (size_t i = 0; i < ncases; i++)
            if (strcmp(cases[i].name, argv[2]) == 0) {
                r = cases[i].run();
                fflush(stdout);
                return r;
            }
        printf("setup: no case %s\n", argv[2]);
        return SETUP;
    }
    r = file_case(argv[1], argv[2]);
    fflush(stdout);
    return r;
}
