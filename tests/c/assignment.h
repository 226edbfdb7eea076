/* A dump-assignment fixture in memory, and supraseal-c2 Assignments over
 * it: shared by the drop-in tests. */
#ifndef CUZK_TEST_ASSIGNMENT_H
#define CUZK_TEST_ASSIGNMENT_H

#include "supraseal_c2.h"
#include "common.h"

typedef struct dumped {
    const char* dir;
    uint8_t *a, *b, *c, *inputs, *aux, *ad, *bid, *bad;
    size_t abc, ninputs, naux;
    size_t a_pop, bi_pop, ba_pop;
} dumped;

/* load_dump reads dir's a, b, c, inputs, aux and density files. */
static inline dumped load_dump(const char* dir) {
    dumped d;
    size_t len;
    d.dir = dir;
    d.a = read_file(dir, "a.bin", &len);
    d.abc = len / 32;
    d.b = read_file(dir, "b.bin", &len);
    d.c = read_file(dir, "c.bin", &len);
    d.inputs = read_file(dir, "inputs.bin", &len);
    d.ninputs = len / 32;
    d.aux = read_file(dir, "aux.bin", &len);
    d.naux = len / 32;
    d.ad = read_file(dir, "a_aux_density.bin", &len);
    d.bid = read_file(dir, "b_inp_density.bin", &len);
    d.bad = read_file(dir, "b_aux_density.bin", &len);
    d.a_pop = meta_field(dir, "a_aux_popcount");
    d.bi_pop = meta_field(dir, "b_inp_popcount");
    d.ba_pop = meta_field(dir, "b_aux_popcount");
    return d;
}

/* dump_assignment is d as an Assignment, with a, b, c at pa, pb, pc (the
 * dump's own, or copies). */
static inline Assignment dump_assignment(const dumped* d, const uint8_t* pa, const uint8_t* pb, const uint8_t* pc) {
    Assignment x;
    memset(&x, 0, sizeof x);
    x.a_aux_density = (const uint64_t*)d->ad;
    x.a_aux_bit_len = d->naux;
    x.a_aux_popcount = d->a_pop;
    x.b_inp_density = (const uint64_t*)d->bid;
    x.b_inp_bit_len = d->ninputs;
    x.b_inp_popcount = d->bi_pop;
    x.b_aux_density = (const uint64_t*)d->bad;
    x.b_aux_bit_len = d->naux;
    x.b_aux_popcount = d->ba_pop;
    x.a = (const fr_t*)pa;
    x.b = (const fr_t*)pb;
    x.c = (const fr_t*)pc;
    x.abc_size = d->abc;
    x.inp_assignment_data = (const fr_t*)d->inputs;
    x.inp_assignment_size = d->ninputs;
    x.aux_assignment_data = (const fr_t*)d->aux;
    x.aux_assignment_size = d->naux;
    return x;
}

/* rust_ok reports whether a drop-in call succeeded, printing its error. */
static inline int rust_ok(RustError e, const char* what) {
    if (e.code != 0) {
        fprintf(stderr, "%s: code %d: %s\n", what, e.code, e.message ? e.message : "");
        free(e.message);
        return 0;
    }
    return 1;
}

/* rust_expect_error checks that a drop-in call failed with a message. */
static inline void rust_expect_error(RustError e, const char* what) {
    CHECK(e.code != 0 && e.message && e.message[0], "%s: expected an error with a message", what);
    free(e.message); /* the drop-in's messages are released with free() */
}

static inline void free_dump(dumped* d) {
    free(d->a); free(d->b); free(d->c); free(d->inputs); free(d->aux);
    free(d->ad); free(d->bid); free(d->bad);
}

#endif
