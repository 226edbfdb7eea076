/* Proves and verifies through cuzk.h, and checks that bad arguments come
 * back as errors. usage: cuzk_api FIXTURE_DIR (with c.r1cs, c.params and
 * the dump-assignment files). This program does not define
 * set_membw_throttle: the library must load without it. */
#include "cuzk.h"
#include "common.h"

static const char* dir;

static int ok(cuzk_error e, const char* what) {
    if (e.code != CUZK_OK) {
        fprintf(stderr, "%s: code %d: %s\n", what, e.code, e.message ? e.message : "(no message)");
        cuzk_free(e.message);
        return 0;
    }
    return 1;
}

/* expect checks an error code and that a message came with it. */
static void expect(cuzk_error e, int code, const char* what) {
    CHECK(e.code == code, "%s: got code %d (%s), want %d", what, e.code, e.message ? e.message : "", code);
    CHECK(e.code == CUZK_OK || (e.message && e.message[0]), "%s: no message", what);
    cuzk_free(e.message);
}

static uint8_t *inputs, *aux;
static size_t ninputs, naux;

static int32_t witness_cb(void* user, size_t partition, uint8_t* in, size_t nin, uint8_t* ax, size_t nax) {
    (void)partition;
    int* calls = user;
    __atomic_add_fetch(calls, 1, __ATOMIC_SEQ_CST);
    if (nin != ninputs || nax != naux) return 7;
    memcpy(in, inputs, 32 * nin);
    memcpy(ax, aux, 32 * nax);
    return 0;
}

static int32_t failing_cb(void* user, size_t p, uint8_t* in, size_t nin, uint8_t* ax, size_t nax) {
    (void)user; (void)p; (void)in; (void)nin; (void)ax; (void)nax;
    return 42;
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s FIXTURE_DIR\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    char r1cs[4096], params[4096], bad[4096];
    snprintf(r1cs, sizeof r1cs, "%s/c.r1cs", dir);
    snprintf(params, sizeof params, "%s/c.params", dir);
    snprintf(bad, sizeof bad, "%s/corrupt.params", dir);
    size_t len;
    inputs = read_file(dir, "inputs.bin", &len);
    ninputs = len / 32;
    aux = read_file(dir, "aux.bin", &len);
    naux = len / 32;

    CHECK(strlen(cuzk_version()) > 0, "version");
    CHECK(ok(cuzk_config("[synthesis]\nmax_parallel = 2\n"), "config"), "config");
    expect(cuzk_config("[synthesis]\nmax_paralel = 2\n"), CUZK_ERR_CONFIG, "config with a typo");
    CHECK(ok(cuzk_register_circuit("c", r1cs), "register"), "register");
    CHECK(ok(cuzk_load_params("c", params, 0), "load_params"), "load_params");

    /* Blocking prove with two partitions (the same witness twice). */
    cuzk_witness w[2] = {{inputs, ninputs, aux, naux}, {inputs, ninputs, aux, naux}};
    cuzk_request req = {0};
    req.circuit_id = "c";
    req.num_partitions = 2;
    req.witnesses = w;
    cuzk_result res = {0};
    CHECK(ok(cuzk_prove(&req, &res), "prove"), "prove");
    CHECK(res.proofs_len == 2 * 192, "proofs_len %zu", res.proofs_len);
    CHECK(res.report_json && strstr(res.report_json, "\"verified\":true"), "report");

    /* Verify: public inputs are inputs[1..], for each partition. */
    size_t npub = ninputs - 1;
    uint8_t* pub = malloc(2 * 32 * npub + 1);
    memcpy(pub, inputs + 32, 32 * npub);
    memcpy(pub + 32 * npub, inputs + 32, 32 * npub);
    CHECK(ok(cuzk_verify("c", res.proofs, res.proofs_len, pub, npub, 0), "verify"), "verify");
    pub[0] ^= 1; /* a different (still reduced) public input */
    expect(cuzk_verify("c", res.proofs, res.proofs_len, pub, npub, 0), CUZK_ERR_INVALID_PROOF, "verify wrong input");
    pub[0] ^= 1;
    res.proofs[200] ^= 0x01;
    cuzk_error e = cuzk_verify("c", res.proofs, res.proofs_len, pub, npub, 0);
    CHECK(e.code == CUZK_ERR_INVALID_PROOF || e.code == CUZK_ERR_INVALID_ARGUMENT, "tampered proof: code %d", e.code);
    cuzk_free(e.message);
    cuzk_result_free(&res);
    CHECK(res.proofs == NULL, "result_free zeroes");

    /* Async: submit/await, and a witness callback. */
    int calls = 0;
    cuzk_request cb = {0};
    cb.circuit_id = "c";
    cb.num_partitions = 3;
    cb.witness_fn = witness_cb;
    cb.witness_user_data = &calls;
    cb.priority = CUZK_PRIORITY_HIGH;
    uint64_t job = 0;
    CHECK(ok(cuzk_submit(&cb, &job), "submit"), "submit");
    CHECK(ok(cuzk_await(job, 0, &res), "await"), "await");
    CHECK(res.proofs_len == 3 * 192 && calls == 3, "callback proofs %zu calls %d", res.proofs_len, calls);
    cuzk_result_free(&res);
    expect(cuzk_await(job, 0, &res), CUZK_ERR_NOT_FOUND, "await a consumed handle");

    cb.witness_fn = failing_cb;
    expect(cuzk_prove(&cb, &res), CUZK_ERR_INVALID_ARGUMENT, "callback failure");

    /* Cancel a queued job behind a long one. */
    cuzk_request many = req;
    cuzk_witness w8[8];
    for (int i = 0; i < 8; i++) w8[i] = w[0];
    many.witnesses = w8;
    many.num_partitions = 8;
    uint64_t j1, j2;
    CHECK(ok(cuzk_submit(&many, &j1), "submit long"), "submit long");
    many.request_id = "to-cancel";
    CHECK(ok(cuzk_submit(&many, &j2), "submit second"), "submit second");
    expect(cuzk_submit(&many, &job), CUZK_ERR_BUSY, "duplicate request id");
    CHECK(ok(cuzk_cancel(j2), "cancel"), "cancel");
    expect(cuzk_await(j2, 0, &res), CUZK_ERR_CANCELLED, "await cancelled");
    CHECK(ok(cuzk_await(j1, 0, &res), "await long"), "await long");
    cuzk_result_free(&res);
    expect(cuzk_cancel(987654), CUZK_ERR_NOT_FOUND, "cancel unknown");

    /* Status, metrics, throttle. */
    char* st = cuzk_status_json();
    CHECK(st && strstr(st, "\"devices\""), "status json");
    cuzk_free(st);
    char* m = cuzk_metrics_text();
    CHECK(m && strstr(m, "cuzk_jobs_completed_total"), "metrics");
    cuzk_free(m);
    cuzk_set_throttle(1);
    st = cuzk_status_json();
    CHECK(st && strstr(st, "\"raised\": true"), "throttle raised in status");
    cuzk_free(st);
    cuzk_set_throttle(0);

    /* Bad arguments: errors, never crashes. */
    expect(cuzk_prove(NULL, &res), CUZK_ERR_INVALID_ARGUMENT, "null request");
    expect(cuzk_prove(&req, NULL), CUZK_ERR_INVALID_ARGUMENT, "null result");
    expect(cuzk_register_circuit(NULL, r1cs), CUZK_ERR_INVALID_ARGUMENT, "null id");
    expect(cuzk_register_circuit("x", "/nonexistent/c.r1cs"), CUZK_ERR_NOT_FOUND, "missing r1cs");
    expect(cuzk_load_params("x", bad, 0), CUZK_ERR_BAD_FILE, "corrupt params");
    cuzk_request unknown = req;
    unknown.circuit_id = "nope";
    expect(cuzk_prove(&unknown, &res), CUZK_ERR_NOT_FOUND, "unknown circuit");
    cuzk_witness shortw = {inputs, ninputs, aux, naux - 1};
    cuzk_request wrong = req;
    wrong.num_partitions = 1;
    wrong.witnesses = &shortw;
    expect(cuzk_prove(&wrong, &res), CUZK_ERR_INVALID_ARGUMENT, "witness too short");
    uint8_t* unsat = malloc(32 * naux);
    memcpy(unsat, aux, 32 * naux);
    memset(unsat + 32 * (naux - 1), 0, 32);
    unsat[32 * (naux - 1)] = 5; /* 5·R^-1 in Montgomery form: some other value */
    cuzk_witness uw = {inputs, ninputs, unsat, naux};
    wrong.witnesses = &uw;
    expect(cuzk_prove(&wrong, &res), CUZK_ERR_UNSATISFIED, "unsatisfied witness");
    memset(unsat + 32 * (naux - 1), 0xff, 32);
    expect(cuzk_prove(&wrong, &res), CUZK_ERR_INVALID_ARGUMENT, "value above the modulus");
    expect(cuzk_verify("c", NULL, 0, NULL, 0, 0), CUZK_ERR_INVALID_ARGUMENT, "verify nothing");
    expect(cuzk_evict_params("nope"), CUZK_ERR_NOT_FOUND, "evict unknown");
    CHECK(ok(cuzk_evict_params("c"), "evict"), "evict");
    expect(cuzk_prove(&req, &res), CUZK_ERR_NOT_FOUND, "prove after evict");

    free(unsat);
    free(pub);
    free(inputs);
    free(aux);
    return finish("c api");
}
