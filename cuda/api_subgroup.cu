// cuzk_cuda.h's subgroup checks of resident point sets. Each exports its
// C++ function (api.h, subgroup/subgroup.cu).
#include "api.h"
#include "cuzk_cuda.h"

extern "C" int cuzk_cuda_g1_check_subgroup(cuzk_cuda_g1_set* handle, size_t offset, size_t n, size_t* n_bad,
                                           size_t* first_bad, char* err, size_t errlen) {
    return cuzk::g1_check_subgroup(handle, offset, n, n_bad, first_bad, err, errlen);
}

extern "C" int cuzk_cuda_g2_check_subgroup(cuzk_cuda_g2_set* handle, size_t offset, size_t n, size_t* n_bad,
                                           size_t* first_bad, char* err, size_t errlen) {
    return cuzk::g2_check_subgroup(handle, offset, n, n_bad, first_bad, err, errlen);
}
