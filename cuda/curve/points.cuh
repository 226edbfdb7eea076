// A resident point set (cuzk_cuda_g1_upload / g2_upload's handle): the
// affine points exactly as the host gave them (gnark-crypto's layout,
// Montgomery form, (0, 0) for infinity), on device dev.
#pragma once
#include <stddef.h>

#include "curve/curve.cuh"

namespace cuzk {

template <class F>
struct point_set {
    int dev;
    size_t n;
    affine_t<F>* pts;
};

}  // namespace cuzk
