/*
 * cuda/cuzk_cuda.h's handles are of distinct types: every call below is
 * compiled (never run) by tests/c/run.sh, first as it is, which must build,
 * then with WRONG defined to each case number, each of which hands a handle
 * to a function of another kind and must not build.
 */
#include <stddef.h>

#include "cuzk_cuda.h"

void use(cuzk_cuda_g1_set* g1, cuzk_cuda_g2_set* g2, cuzk_cuda_scalars* s, cuzk_cuda_abc* abc,
         cuzk_cuda_stream* st);

void use(cuzk_cuda_g1_set* g1, cuzk_cuda_g2_set* g2, cuzk_cuda_scalars* s, cuzk_cuda_abc* abc,
         cuzk_cuda_stream* st) {
    char err[64];
    unsigned char result[64];
#if !defined(WRONG)
    cuzk_cuda_g1_set* g1b = NULL;
    cuzk_cuda_scalars* sb = NULL;
    (void)cuzk_cuda_g1_upload(0, NULL, 0, &g1b, err, sizeof err);
    (void)cuzk_cuda_msm_g1_resident(g1, s, result, err, sizeof err);
    (void)cuzk_cuda_msm_g2_resident(g2, s, result, err, sizeof err);
    (void)cuzk_cuda_stream_msm(st, 0, s, 0, 0, 0, result, err, sizeof err);
    (void)cuzk_cuda_h_abc_scalars(abc, NULL, &sb, err, sizeof err);
    cuzk_cuda_g1_free(g1);
    cuzk_cuda_g2_free(g2);
    cuzk_cuda_scalars_free(s);
    cuzk_cuda_abc_free(abc);
    cuzk_cuda_stream_free(st);
#elif WRONG == 1
    cuzk_cuda_g2_free(g1); /* a G1 set to g2_free */
#elif WRONG == 2
    cuzk_cuda_scalars_free(st); /* a streamer to scalars_free */
#elif WRONG == 3
    (void)cuzk_cuda_msm_g1_resident(g2, s, result, err, sizeof err); /* G2 points to a G1 MSM */
#elif WRONG == 4
    (void)cuzk_cuda_stream_msm(st, 0, g1, 0, 0, 0, result, err, sizeof err); /* points as scalars */
#elif WRONG == 5
    cuzk_cuda_abc_free(s); /* a scalar vector to abc_free */
#elif WRONG == 6
    cuzk_cuda_g1_set* out = NULL;
    (void)cuzk_cuda_g2_upload(0, NULL, 0, &out, err, sizeof err); /* a G2 set into a G1 handle */
#endif
    (void)g1, (void)g2, (void)s, (void)abc, (void)st, (void)result, (void)err;
}
