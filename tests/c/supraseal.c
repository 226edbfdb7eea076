/* Proves through the supraseal-c2 drop-in symbols from dump-assignment
 * files and checks the proofs with cuzk_verify. Defines the host's
 * set_membw_throttle and checks that the library calls it around the G2
 * MSM. usage: supraseal FIXTURE_DIR */
#include <pthread.h>

#include "cuzk.h"
#include "supraseal_c2.h"
#include "common.h"
#include "assignment.h"

static int throttle_on, throttle_off;

void set_membw_throttle(int v) {
    if (v)
        __atomic_add_fetch(&throttle_on, 1, __ATOMIC_SEQ_CST);
    else
        __atomic_add_fetch(&throttle_off, 1, __ATOMIC_SEQ_CST);
}

static dumped d;

static Assignment assignment(void) { return dump_assignment(&d, d.a, d.b, d.c); }

/* verify compresses the in-memory proofs and checks them with cuzk_verify. */
static int verify(const groth16_proof* proofs, size_t n) {
    uint8_t* enc = malloc(192 * n);
    cuzk_error e = cuzk_proof_compress(proofs, n, enc);
    if (e.code) {
        fprintf(stderr, "compress: %s\n", e.message);
        cuzk_free(e.message);
        free(enc);
        return 0;
    }
    size_t npub = d.ninputs - 1;
    uint8_t* pub = malloc(32 * npub * n + 1);
    for (size_t i = 0; i < n; i++) memcpy(pub + 32 * npub * i, d.inputs + 32, 32 * npub);
    e = cuzk_verify("c", enc, 192 * n, pub, npub, 0);
    int good = e.code == CUZK_OK;
    if (!good) fprintf(stderr, "verify: code %d: %s\n", e.code, e.message);
    cuzk_free(e.message);
    free(pub);
    free(enc);
    return good;
}

static SRS srs;
static void* mtx;
static int thread_failures;

static void* prove_thread(void* arg) {
    (void)arg;
    Assignment x[2] = {assignment(), assignment()};
    fr_t r[2], s[2];
    memset(r, 0, sizeof r);
    memset(s, 0, sizeof s);
    r[0].limbs[0] = 3; r[1].limbs[0] = 5; s[0].limbs[0] = 7; s[1].limbs[0] = 11;
    groth16_proof proofs[2];
    SRS mine = clone_SRS(&srs);
    RustError e = generate_groth16_proofs_c(x, 2, r, s, proofs, &mine, mtx, -1);
    if (!rust_ok(e, "thread prove") || !verify(proofs, 2)) __atomic_add_fetch(&thread_failures, 1, __ATOMIC_SEQ_CST);
    drop_SRS(&mine);
    return NULL;
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s FIXTURE_DIR\n", argv[0]);
        return 2;
    }
    d = load_dump(argv[1]);
    char params[4096], corrupt[4096];
    snprintf(params, sizeof params, "%s/c.params", d.dir);
    snprintf(corrupt, sizeof corrupt, "%s/corrupt.params", d.dir);

    cuzk_error ce = cuzk_load_params("c", params, 0);
    CHECK(ce.code == 0, "load params for verification");
    CHECK(sizeof(Assignment) == 17 * sizeof(void*), "Assignment is 17 words");
    CHECK(sizeof(groth16_proof) == 384, "groth16_proof is 384 bytes");
    CHECK(sizeof(fr_t) == 32, "fr_t is 32 bytes");

    CHECK(rust_ok(create_SRS(&srs, params, true), "create_SRS"), "create_SRS");
    SRS again;
    CHECK(rust_ok(create_SRS(&again, params, true), "create_SRS cached"), "create_SRS cached");

    /* Synchronous, with fixed r and s: proving twice gives the same bytes. */
    Assignment x[1] = {assignment()};
    fr_t r = {{1, 0, 0, 0}}, s = {{2, 0, 0, 0}};
    groth16_proof p1, p2;
    CHECK(rust_ok(generate_groth16_proofs_c(x, 1, &r, &s, &p1, &srs, NULL, -1), "prove"), "prove");
    CHECK(verify(&p1, 1), "proof verifies");
    CHECK(rust_ok(generate_groth16_proofs_c(x, 1, &r, &s, &p2, &again, NULL, -1), "prove again"), "prove again");
    CHECK(memcmp(&p1, &p2, sizeof p1) == 0, "fixed r, s: deterministic");
    CHECK(throttle_on > 0 && throttle_on == throttle_off, "host throttle called around G2: on %d off %d", throttle_on, throttle_off);

    /* Start / finalize. */
    void* pending = NULL;
    CHECK(rust_ok(generate_groth16_proofs_start_c(x, 1, &r, &s, &srs, NULL, -1, &pending), "start"), "start");
    CHECK(pending != NULL, "pending handle");
    CHECK(rust_ok(finalize_groth16_proof_c(pending, &p2), "finalize"), "finalize");
    CHECK(memcmp(&p1, &p2, sizeof p1) == 0, "start/finalize gives the same proof");
    CHECK(rust_ok(generate_groth16_proofs_start_c(x, 1, &r, &s, &srs, NULL, -1, &pending), "start 2"), "start 2");
    destroy_pending_proof(pending); /* abandoned */

    /* gpu_index: -1 is any device (above); an index naming no GPU (1000
     * anywhere, and every index on a CPU-only host) is refused with a message
     * naming gpu_index, and *pending_out is left alone. */
    RustError ge = generate_groth16_proofs_c(x, 1, &r, &s, &p2, &srs, NULL, 1000);
    CHECK(ge.code == 1 && ge.message && strstr(ge.message, "gpu_index 1000"), "gpu_index 1000 refused: code %d, %s", ge.code,
          ge.message ? ge.message : "(no message)");
    free(ge.message);
    pending = NULL;
    ge = generate_groth16_proofs_start_c(x, 1, &r, &s, &srs, NULL, 1000, &pending);
    CHECK(ge.code != 0 && ge.message && pending == NULL, "start with gpu_index 1000 refused, pending untouched");
    free(ge.message);
    rust_expect_error(generate_groth16_proofs_c(x, 1, &r, &s, &p2, &srs, NULL, -2), "gpu_index -2");

    /* Eight host threads proving concurrently through one GPU mutex. */
    mtx = create_gpu_mutex();
    pthread_t th[8];
    for (int i = 0; i < 8; i++) pthread_create(&th[i], NULL, prove_thread, NULL);
    for (int i = 0; i < 8; i++) pthread_join(th[i], NULL);
    CHECK(thread_failures == 0, "%d thread(s) failed", thread_failures);
    destroy_gpu_mutex(mtx);

    /* Bad arguments: errors, never crashes. */
    rust_expect_error(generate_groth16_proofs_c(NULL, 1, &r, &s, &p1, &srs, NULL, -1), "null provers");
    rust_expect_error(generate_groth16_proofs_c(x, 1, &r, &s, NULL, &srs, NULL, -1), "null proofs");
    rust_expect_error(generate_groth16_proofs_c(x, 1, &r, &s, &p1, NULL, NULL, -1), "null srs");
    Assignment wrong = assignment();
    wrong.a_aux_popcount += 1;
    rust_expect_error(generate_groth16_proofs_c(&wrong, 1, &r, &s, &p1, &srs, NULL, -1), "popcount mismatch");
    wrong = assignment();
    wrong.abc_size = 1u << 30;
    rust_expect_error(generate_groth16_proofs_c(&wrong, 1, &r, &s, &p1, &srs, NULL, -1), "abc_size beyond the domain");
    wrong = assignment();
    wrong.aux_assignment_size -= 1;
    rust_expect_error(generate_groth16_proofs_c(&wrong, 1, &r, &s, &p1, &srs, NULL, -1), "aux size mismatch");
    wrong = assignment();
    wrong.aux_assignment_data = NULL;
    rust_expect_error(generate_groth16_proofs_c(&wrong, 1, &r, &s, &p1, &srs, NULL, -1), "null aux");
    SRS broken;
    rust_expect_error(create_SRS(&broken, corrupt, false), "corrupt params");
    rust_expect_error(create_SRS(&broken, "/nonexistent.params", false), "missing params");
    rust_expect_error(create_SRS(NULL, params, false), "null ret");
    rust_expect_error(finalize_groth16_proof_c((void*)&r, &p1), "foreign pending handle");
    SRS dead = {(const void*)&r};
    rust_expect_error(generate_groth16_proofs_c(x, 1, &r, &s, &p1, &dead, NULL, -1), "foreign SRS handle");

    evict_SRS(&srs);
    drop_SRS(&again);
    CHECK(rust_ok(generate_groth16_proofs_c(x, 1, &r, &s, &p2, &srs, NULL, -1), "prove after evict"), "evicted handles still work");
    drop_SRS(&srs);
    CHECK(srs.ptr == NULL, "drop_SRS clears the handle");

    free_dump(&d);
    return finish("supraseal-c2 drop-in");
}
