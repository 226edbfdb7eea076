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

/* Reads a circom .r1cs file (version 1) into CSR matrices: the test of
 * cuzk_register_circuit_matrices registers the fixture circuit this way and
 * proves with it. Coefficients stay canonical little-endian. */
typedef struct {
    uint64_t* row_ptr[3];
    uint32_t* col[3];
    uint8_t* coeff[3];
    size_t nnz[3];
    size_t wires, inputs, constraints;
} csr;

static int read_circom(const char* path_dir, csr* m) {
    size_t len;
    uint8_t* f = read_file(path_dir, "c.r1cs", &len);
    uint32_t nsec;
    memcpy(&nsec, f + 8, 4);
    size_t off = 12;
    uint8_t* hdr = NULL;
    uint8_t* cons = NULL;
    for (uint32_t i = 0; i < nsec; i++) {
        uint32_t type;
        uint64_t size;
        memcpy(&type, f + off, 4);
        memcpy(&size, f + off + 4, 8);
        if (type == 1) hdr = f + off + 12;
        if (type == 2) cons = f + off + 12;
        off += 12 + size;
    }
    if (!hdr || !cons) return 0;
    uint32_t w, out, pub, nc;
    memcpy(&w, hdr + 36, 4);
    memcpy(&out, hdr + 40, 4);
    memcpy(&pub, hdr + 44, 4);
    memcpy(&nc, hdr + 60, 4);
    m->wires = w;
    m->inputs = 1 + out + pub;
    m->constraints = nc;
    /* Two passes: count the terms, then fill. */
    for (int pass = 0; pass < 2; pass++) {
        uint8_t* p = cons;
        for (int k = 0; k < 3; k++) m->nnz[k] = 0;
        for (uint32_t r = 0; r < nc; r++) {
            for (int k = 0; k < 3; k++) {
                uint32_t n;
                memcpy(&n, p, 4);
                p += 4;
                if (pass) m->row_ptr[k][r] = m->nnz[k];
                for (uint32_t t = 0; t < n; t++) {
                    if (pass) {
                        memcpy(&m->col[k][m->nnz[k]], p, 4);
                        memcpy(m->coeff[k] + 32 * m->nnz[k], p + 4, 32);
                    }
                    m->nnz[k]++;
                    p += 36;
                }
            }
        }
        for (int k = 0; k < 3; k++) {
            if (!pass) {
                m->row_ptr[k] = malloc(8 * (nc + 1));
                m->col[k] = malloc(4 * (m->nnz[k] + 1));
                m->coeff[k] = malloc(32 * (m->nnz[k] + 1));
            } else {
                m->row_ptr[k][nc] = m->nnz[k];
            }
        }
    }
    free(f);
    return 1;
}

static void register_matrices_test(cuzk_witness* w) {
    csr m;
    CHECK(read_circom(dir, &m), "read c.r1cs");
    cuzk_matrices cm;
    memset(&cm, 0, sizeof cm);
    cm.num_inputs = m.inputs;
    cm.num_aux = m.wires - m.inputs;
    cm.num_constraints = m.constraints;
    cuzk_matrix* mats[3] = {&cm.a, &cm.b, &cm.c};
    for (int k = 0; k < 3; k++) {
        mats[k]->row_ptr = m.row_ptr[k];
        mats[k]->col = m.col[k];
        mats[k]->coeff = m.coeff[k];
    }
    cm.flags = CUZK_FLAG_CANONICAL;
    CHECK(ok(cuzk_register_circuit_matrices("mem", &cm), "register matrices"), "register matrices");
    char params[4096];
    snprintf(params, sizeof params, "%s/c.params", dir);
    CHECK(ok(cuzk_load_params("mem", params, CUZK_FLAG_TRUSTED_PARAMS), "load params for mem"), "load params for mem");
    cuzk_request req = {0};
    req.circuit_id = "mem";
    req.num_partitions = 1;
    req.witnesses = w;
    cuzk_result res = {0};
    CHECK(ok(cuzk_prove(&req, &res), "prove with matrices"), "prove with matrices");
    CHECK(ok(cuzk_verify("mem", res.proofs, res.proofs_len, w->inputs + 32, w->num_inputs - 1, 0), "verify mem"), "verify mem");
    cuzk_result_free(&res);

    /* Malformed matrices are refused. */
    uint32_t saved = m.col[0][0];
    m.col[0][0] = 1u << 30;
    expect(cuzk_register_circuit_matrices("bad", &cm), CUZK_ERR_INVALID_ARGUMENT, "column out of range");
    m.col[0][0] = saved;
    m.coeff[1][31] = 0xff; /* above the modulus */
    expect(cuzk_register_circuit_matrices("bad", &cm), CUZK_ERR_INVALID_ARGUMENT, "coefficient out of field");
    cm.b.row_ptr = NULL;
    expect(cuzk_register_circuit_matrices("bad", &cm), CUZK_ERR_INVALID_ARGUMENT, "null row_ptr");
    expect(cuzk_register_circuit_matrices("bad", NULL), CUZK_ERR_INVALID_ARGUMENT, "null matrices");
    for (int k = 0; k < 3; k++) {
        free(m.row_ptr[k]);
        free(m.col[k]);
        free(m.coeff[k]);
    }
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
    expect(cuzk_config("[metrics]\nlisten = \"9821\"\n"), CUZK_ERR_CONFIG, "metrics.listen without a host");
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

    register_matrices_test(&w[0]);

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
