// cuzk_cuda.h's entry points for scalar vectors on the device and the
// prep. Each exports its C++ function (api.h, scalars/scalars.cu).
#include "api.h"
#include "cuzk_cuda.h"

using cuzk::handle_out;

extern "C" int cuzk_cuda_scalars_upload(int dev, const void* host, size_t n, cuzk_cuda_scalars** handle, char* err,
                                        size_t errlen) {
    handle_out<cuzk_cuda_scalars> h(handle);
    return h.done(cuzk::scalars_upload(dev, host, n, h, err, errlen));
}

extern "C" int cuzk_cuda_scalars_select(cuzk_cuda_scalars* aux_handle, const void* head, size_t n_head,
                                        const uint64_t* words, cuzk_cuda_scalars** handle, size_t* n_out, char* err,
                                        size_t errlen) {
    handle_out<cuzk_cuda_scalars> h(handle);
    return h.done(cuzk::scalars_select(aux_handle, head, n_head, words, h, n_out, err, errlen));
}

extern "C" int cuzk_cuda_scalars_download(cuzk_cuda_scalars* handle, void* host, char* err, size_t errlen) {
    return cuzk::scalars_download(handle, host, err, errlen);
}

extern "C" void cuzk_cuda_scalars_free(cuzk_cuda_scalars* handle) { cuzk::scalars_free(handle); }
