// The quotient h from host evaluations into a device buffer, shared by
// ntt.cu (which defines it) and msm_g1.cu (which feeds it straight into the
// H MSM).
#pragma once
#include <stddef.h>

namespace cuzk {

// h_from_host allocates dv[i] (n Fr elements each), copies host hv[i] (a,
// b, c) into them and computes h into dv[0] (dv[1], dv[2] are scratch);
// the work is queued on the default stream. With page-locked a, b, c the
// copies run on a copy stream and each vector's NTTs start when it has
// arrived, beside the next copy. The caller frees dv (also on error).
int h_from_host(int dev, void* dv[3], void* const hv[3], size_t n, const void* consts, char* err, size_t errlen);

}  // namespace cuzk
