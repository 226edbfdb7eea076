/* The drop-in's lifetimes as bellperson uses them: prove_start frees r_s,
 * s_s and a, b, c as soon as generate_groth16_proofs_start_c returns, and
 * keeps only the inputs, aux and density bitmaps until finalize. The proofs
 * must be those of the synchronous call with the same r and s, whatever
 * the freed memory holds afterwards. Also: sizes near 2^64 in an
 * Assignment are refused before the host's memory is read.
 * usage: freed_inputs FIXTURE_DIR */
#include "cuzk.h"
#include "supraseal_c2.h"
#include "common.h"
#include "assignment.h"

static dumped d;

static Assignment assignment(const uint8_t* pa, const uint8_t* pb, const uint8_t* pc) {
    return dump_assignment(&d, pa, pb, pc);
}

static uint8_t* dup(const uint8_t* p, size_t n) {
    uint8_t* q = malloc(n);
    memcpy(q, p, n);
    return q;
}

/* scribble_free overwrites a block before freeing it, as reused memory
 * would be. */
static void scribble_free(void* p, size_t n, int v) {
    memset(p, v, n);
    free(p);
}

enum { N = 2 };

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s FIXTURE_DIR\n", argv[0]);
        return 2;
    }
    d = load_dump(argv[1]);
    const uint8_t *a = d.a, *b = d.b, *c = d.c;
    size_t abc = d.abc;
    char params[4096];
    snprintf(params, sizeof params, "%s/c.params", d.dir);
    SRS srs;
    if (!rust_ok(create_SRS(&srs, params, false), "create_SRS")) return 1;

    /* The synchronous proofs with r = 3, 5 and s = 7, 11 (small values are
     * valid Montgomery-form elements). */
    fr_t r[N] = {{{3, 0, 0, 0}}, {{5, 0, 0, 0}}}, s[N] = {{{7, 0, 0, 0}}, {{11, 0, 0, 0}}};
    Assignment x[N] = {assignment(a, b, c), assignment(a, b, c)};
    groth16_proof want[N], got[N];
    CHECK(rust_ok(generate_groth16_proofs_c(x, N, r, s, want, &srs, NULL, -1), "prove"), "synchronous prove");

    size_t nabc = 32 * abc;
    for (int round = 0; round < 5; round++) {
        fr_t* rs = (fr_t*)dup((const uint8_t*)r, sizeof r);
        fr_t* ss = (fr_t*)dup((const uint8_t*)s, sizeof s);
        uint8_t *ca[N], *cb[N], *cc[N];
        Assignment* xs = malloc(N * sizeof(Assignment));
        for (int k = 0; k < N; k++) {
            ca[k] = dup(a, nabc);
            cb[k] = dup(b, nabc);
            cc[k] = dup(c, nabc);
            xs[k] = assignment(ca[k], cb[k], cc[k]);
        }
        void* pending = NULL;
        CHECK(rust_ok(generate_groth16_proofs_start_c(xs, N, rs, ss, &srs, NULL, -1, &pending), "start"), "start, round %d", round);
        /* bellperson's prove_start drops these now */
        scribble_free(rs, sizeof r, 0x5a + round);
        scribble_free(ss, sizeof s, 0xa5 - round);
        for (int k = 0; k < N; k++) {
            scribble_free(ca[k], nabc, 0x11 * (k + 1));
            scribble_free(cb[k], nabc, 0x22 * (k + 1));
            scribble_free(cc[k], nabc, 0x33 * (k + 1));
        }
        scribble_free(xs, N * sizeof(Assignment), 0x77);
        /* reuse the freed blocks, as the host's next synthesis would */
        uint8_t* junk[3 * N];
        for (int k = 0; k < 3 * N; k++) {
            junk[k] = malloc(nabc);
            memset(junk[k], 0xee, nabc);
        }
        memset(got, 0, sizeof got);
        CHECK(rust_ok(finalize_groth16_proof_c(pending, got), "finalize"), "finalize, round %d", round);
        CHECK(memcmp(got, want, sizeof want) == 0, "round %d: the proofs of the r, s given at start", round);
        for (int k = 0; k < 3 * N; k++) free(junk[k]);
    }

    /* Sizes near 2^64 from the host: refused, never read. */
    size_t huge[] = {(size_t)1 << 40, (size_t)1 << 62, (size_t)-1, (size_t)-64};
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        Assignment w = assignment(a, b, c);
        w.a_aux_bit_len = huge[i];
        rust_expect_error(generate_groth16_proofs_c(&w, 1, r, s, got, &srs, NULL, -1), "a_aux_bit_len near 2^64");
        w = assignment(a, b, c);
        w.b_inp_bit_len = huge[i];
        w.b_inp_popcount = huge[i];
        rust_expect_error(generate_groth16_proofs_c(&w, 1, r, s, got, &srs, NULL, -1), "b_inp_bit_len near 2^64");
        w = assignment(a, b, c);
        w.b_aux_bit_len = huge[i];
        w.aux_assignment_size = huge[i];
        rust_expect_error(generate_groth16_proofs_c(&w, 1, r, s, got, &srs, NULL, -1), "aux size near 2^64");
        w = assignment(a, b, c);
        w.abc_size = huge[i];
        rust_expect_error(generate_groth16_proofs_c(&w, 1, r, s, got, &srs, NULL, -1), "abc_size near 2^64");
        w = assignment(a, b, c);
        rust_expect_error(generate_groth16_proofs_c(&w, huge[i], r, s, got, &srs, NULL, -1), "num_circuits near 2^64");
    }

    drop_SRS(&srs);
    free_dump(&d);
    return finish("drop-in lifetimes");
}
