// cuzk_cuda.h's entry points for streamed point sets. Each exports its C++
// function (api.h, util/stream.cu).
#include "api.h"
#include "cuzk_cuda.h"

using cuzk::handle_out;

extern "C" int cuzk_cuda_stream_new(int dev, int group, size_t chunk, cuzk_cuda_stream** handle, char* err,
                                    size_t errlen) {
    handle_out<cuzk_cuda_stream> h(handle);
    return h.done(cuzk::stream_new(dev, group, chunk, h, err, errlen));
}

extern "C" int cuzk_cuda_stream_put(cuzk_cuda_stream* handle, int slot, const void* points, size_t n, char* err,
                                    size_t errlen) {
    return cuzk::stream_put(handle, slot, points, n, err, errlen);
}

extern "C" int cuzk_cuda_stream_msm(cuzk_cuda_stream* handle, int slot, cuzk_cuda_scalars* scalars, size_t offset,
                                    size_t n, size_t set_n, void* result, char* err, size_t errlen) {
    return cuzk::stream_msm(handle, slot, scalars, offset, n, set_n, result, err, errlen);
}

extern "C" void cuzk_cuda_stream_free(cuzk_cuda_stream* handle) { cuzk::stream_free(handle); }

extern "C" int cuzk_cuda_stream_take_stats(cuzk_cuda_stream* handle, uint64_t* bytes, uint64_t* copy_ns, char* err,
                                           size_t errlen) {
    return cuzk::stream_take_stats(handle, bytes, copy_ns, err, errlen);
}
