// The quotient h from host evaluations a, b, c, shared by ntt.cu (which
// defines it) and msm_g1.cu (which feeds h straight into the H MSM).
#pragma once
#include <cuda_runtime.h>
#include <stddef.h>

namespace cuzk {

// abc_t holds a, b, c on the device (n Fr elements each) and the events
// their copies record when they run on the copy stream; parts is 1 while
// only a is there (b and c come with abc_add), 3 once all are.
struct abc_t {
    int dev;
    size_t n;
    void* dv[3];
    cudaEvent_t ready[3];
    int parts;
};

// abc_upload allocates *out and starts copying host hv[i] (a, b, c) into
// it: page-locked buffers on the copy stream, beside kernels (they must
// stay unchanged until the handle is used or freed); others through the
// staging buffers, before it returns. *out is set only on success.
// hv[1] and hv[2] may both be NULL: a alone goes up, and abc_add puts b
// and c up later.
int abc_upload(int dev, void* const hv[3], size_t n, abc_t** out, char* err, size_t errlen);

// abc_add starts copying b and c into a handle made with a alone.
int abc_add(abc_t* x, void* b, void* c, char* err, size_t errlen);

// h_abc queues h into x->dv[0] on the default stream, each vector's NTTs
// after its copy; x->dv[1] and dv[2] are freed (room for what follows).
int h_abc(abc_t* x, const void* consts, char* err, size_t errlen);

// h_abc_lean is h_abc for a handle holding a alone: b and c are copied
// from the host one after the other, two vectors on the device at once.
int h_abc_lean(abc_t* x, void* b, void* c, const void* consts, char* err, size_t errlen);

// abc_free waits for x's copies and frees it (NULL is ignored).
void abc_free(abc_t* x);

}  // namespace cuzk
