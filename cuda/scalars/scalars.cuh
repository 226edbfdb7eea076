// Scalar vectors kept on the device between calls (cuzk_cuda.h's scalar
// handles): the witness's aux values go up once per partition, and the A
// and B query scalars are selected from them on the device.
#pragma once
#include <stddef.h>

#include "field/field.cuh"

namespace cuzk {

struct scalar_vec {
    int dev;
    size_t n;
    fr_t* p;
};

}  // namespace cuzk
