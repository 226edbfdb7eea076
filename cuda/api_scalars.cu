// cuzk_cuda.h's entry points for scalar vectors on the device and the
// prep. Each exports its C++ function (api.h, scalars/scalars.cu).
#include "api.h"
#include "cuzk_cuda.h"

extern "C" int cuzk_cuda_scalars_upload(int dev, const void* host, size_t n, void** handle, char* err, size_t errlen) {
    return cuzk::scalars_upload(dev, host, n, handle, err, errlen);
}

extern "C" int cuzk_cuda_scalars_select(void* aux_handle, const void* head, size_t n_head, const uint64_t* words,
                                        void** handle, size_t* n_out, char* err, size_t errlen) {
    return cuzk::scalars_select(aux_handle, head, n_head, words, handle, n_out, err, errlen);
}

extern "C" int cuzk_cuda_scalars_download(void* handle, void* host, char* err, size_t errlen) {
    return cuzk::scalars_download(handle, host, err, errlen);
}

extern "C" void cuzk_cuda_scalars_free(void* handle) { cuzk::scalars_free(handle); }
