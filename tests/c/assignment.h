/* The fixture's dump-assignment files as a supraseal-c2 Assignment, for the
 * C tests of the drop-in. */
#ifndef CUZK_TEST_ASSIGNMENT_H
#define CUZK_TEST_ASSIGNMENT_H

#include "supraseal_c2.h"
#include "common.h"

typedef struct {
    uint8_t *a, *b, *c, *inputs, *aux, *a_aux, *b_inp, *b_aux;
    size_t abc, ninputs, naux;
    size_t a_aux_pop, b_inp_pop, b_aux_pop;
} fixture_assignment;

/* Reads a.bin, b.bin, c.bin, inputs.bin, aux.bin, the density bitmaps and
 * the popcounts of assignment.json from dir. Exits on failure. */
static inline fixture_assignment load_assignment(const char* dir) {
    fixture_assignment f;
    size_t len;
    f.a = read_file(dir, "a.bin", &len);
    f.abc = len / 32;
    f.b = read_file(dir, "b.bin", &len);
    f.c = read_file(dir, "c.bin", &len);
    f.inputs = read_file(dir, "inputs.bin", &len);
    f.ninputs = len / 32;
    f.aux = read_file(dir, "aux.bin", &len);
    f.naux = len / 32;
    f.a_aux = read_file(dir, "a_aux_density.bin", &len);
    f.b_inp = read_file(dir, "b_inp_density.bin", &len);
    f.b_aux = read_file(dir, "b_aux_density.bin", &len);
    f.a_aux_pop = meta_field(dir, "a_aux_popcount");
    f.b_inp_pop = meta_field(dir, "b_inp_popcount");
    f.b_aux_pop = meta_field(dir, "b_aux_popcount");
    return f;
}

/* The Assignment over f's buffers (borrowed). */
static inline Assignment as_assignment(const fixture_assignment* f) {
    return (Assignment){
        .a_aux_density = (const uint64_t*)f->a_aux, .a_aux_bit_len = f->naux, .a_aux_popcount = f->a_aux_pop,
        .b_inp_density = (const uint64_t*)f->b_inp, .b_inp_bit_len = f->ninputs, .b_inp_popcount = f->b_inp_pop,
        .b_aux_density = (const uint64_t*)f->b_aux, .b_aux_bit_len = f->naux, .b_aux_popcount = f->b_aux_pop,
        .a = (const fr_t*)f->a, .b = (const fr_t*)f->b, .c = (const fr_t*)f->c, .abc_size = f->abc,
        .inp_assignment_data = (const fr_t*)f->inputs, .inp_assignment_size = f->ninputs,
        .aux_assignment_data = (const fr_t*)f->aux, .aux_assignment_size = f->naux,
    };
}

#endif
