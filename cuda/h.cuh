// The quotient h on device buffers, shared by ntt.cu (which defines it)
// and msm_g1.cu (which feeds it straight into the H MSM).
#pragma once
#include <stddef.h>

namespace cuzk {

// h_device computes h from the evaluations in device buffers da, db, dc (n
// Fr elements each) into da; db and dc are overwritten. consts as in
// cuzk_cuda.h.
int h_device(int dev, void* da, void* db, void* dc, size_t n, const void* consts, char* err, size_t errlen);

// upload_abc allocates dv[i] (n elements) and copies host hv[i] into it;
// the caller frees dv (also on error).
int upload_abc(int dev, void* dv[3], void* const hv[3], size_t n, char* err, size_t errlen);

}  // namespace cuzk
