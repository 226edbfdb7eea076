// cuzk_cuda.h's ABI version. The other entry points that only marshal
// handles are generated into api_gen.cu (from cuzk_cuda.h); the ones that
// marshal more are in the api_*.cu files.
#include "api.h"
#include "cuzk_cuda.h"

extern "C" int cuzk_cuda_abi_version(void) { return CUZK_CUDA_ABI_VERSION; }
