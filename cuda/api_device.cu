// cuzk_cuda.h's entry points for the devices: the ABI version, the devices
// and their memory, a device's options and memory count, host memory's
// registration. Each exports its C++ function (api.h, util/device.cu).
#include "api.h"
#include "cuzk_cuda.h"

extern "C" int cuzk_cuda_abi_version(void) { return CUZK_CUDA_ABI_VERSION; }

extern "C" int cuzk_cuda_device_count(int* count, char* err, size_t errlen) {
    return cuzk::device_count(count, err, errlen);
}

extern "C" int cuzk_cuda_device_info(int dev, char* name, size_t namelen, size_t* total, size_t* freeb, char* err,
                                     size_t errlen) {
    return cuzk::device_info(dev, name, namelen, total, freeb, err, errlen);
}

extern "C" int cuzk_cuda_set_options(int dev, const cuzk_cuda_options* o, char* err, size_t errlen) {
    return cuzk::set_options(dev, o, err, errlen);
}

extern "C" int cuzk_cuda_memory(int dev, uint64_t* held, uint64_t* peak, uint64_t* cap, uint64_t* pool, int reset_peak,
                                char* err, size_t errlen) {
    return cuzk::memory(dev, held, peak, cap, pool, reset_peak, err, errlen);
}

extern "C" int cuzk_cuda_host_register(void* p, size_t bytes, char* err, size_t errlen) {
    return cuzk::host_register(p, bytes, err, errlen);
}

extern "C" int cuzk_cuda_host_unregister(void* p, char* err, size_t errlen) {
    return cuzk::host_unregister(p, err, errlen);
}
