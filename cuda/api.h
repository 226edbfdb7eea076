// The C++ side of cuzk_cuda.h: cuzk::X is the entry point cuzk_cuda_X with
// every handle as the void* its concept file casts to its own type
// (api_gen.h, generated from cuzk_cuda.h, declares them; the concept files
// define them). api_gen.cu exports those that only marshal handles; the
// hand-written api_*.cu files export the rest. Host-only: the api files
// include no kernels.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "api_gen.h"
#include "cuzk_cuda.h"

namespace cuzk {

// handle_out marshals a handle out-parameter of cuzk_cuda.h's opaque type T
// for a concept file's function that writes a void*: the concept file sees
// NULL when the caller passed NULL (and refuses it), and the caller's handle
// is written only on success.
//   handle_out<cuzk_cuda_g1_set> h(handle);
//   return h.done(g1_upload(dev, points, n, h, err, errlen));
template <class T>
struct handle_out {
    T** dst;
    void* v = nullptr;
    explicit handle_out(T** d) : dst(d) {}
    operator void**() { return dst ? &v : nullptr; }
    int done(int rc) {
        if (rc == 0 && dst) *dst = static_cast<T*>(v);
        return rc;
    }
};

// ntt/ntt.cu: frees dev's twiddle tables that no call is using
// (set_options, under a cap).
void trim_twiddles(int dev);

}  // namespace cuzk
