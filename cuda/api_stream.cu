// cuzk_cuda.h's entry points for streamed point sets. Each exports its C++
// function (api.h, util/stream.cu).
#include "api.h"
#include "cuzk_cuda.h"

extern "C" int cuzk_cuda_stream_new(int dev, int group, size_t chunk, void** handle, char* err, size_t errlen) {
    return cuzk::stream_new(dev, group, chunk, handle, err, errlen);
}

extern "C" int cuzk_cuda_stream_put(void* handle, int slot, const void* points, size_t n, char* err, size_t errlen) {
    return cuzk::stream_put(handle, slot, points, n, err, errlen);
}

extern "C" int cuzk_cuda_stream_msm(void* handle, int slot, void* scalars, size_t offset, size_t n, size_t set_n,
                                    void* result, char* err, size_t errlen) {
    return cuzk::stream_msm(handle, slot, scalars, offset, n, set_n, result, err, errlen);
}

extern "C" void cuzk_cuda_stream_free(void* handle) { cuzk::stream_free(handle); }

extern "C" int cuzk_cuda_stream_take_stats(void* handle, uint64_t* bytes, uint64_t* copy_ns, char* err, size_t errlen) {
    return cuzk::stream_take_stats(handle, bytes, copy_ns, err, errlen);
}
