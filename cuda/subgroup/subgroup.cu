// Subgroup checks over resident point sets, behind cuzk_cuda.h's
// cuzk_cuda_g1_check_subgroup / g2 (api_gen.cu wraps them): one thread
// a point runs in_subgroup (subgroup.cuh), and the points that fail are
// counted, the first one's index kept. A parameter file's points go to the
// device anyway for the MSMs, so the check there costs no extra copy: its
// work is ~126 G1 doublings a G1 point (63 Fp2 doublings a G2 point), which
// on 16 CPU cores took over 300 s for a 9.6 GB file.
#include <cuda_runtime.h>

#include "api.h"
#include "curve/points.cuh"
#include "cuzk_cuda.h"
#include "subgroup/subgroup.cuh"
#include "util/common.cuh"

namespace {

using cuzk::fail;
using cuzk::point_set;

// 128 threads a block, at least SUBGROUP_BLOCKS (2) blocks a
// multiprocessor: up to 255 registers a thread, as the MSM's accumulation
// (msm/kernels.cuh's k_subsum, whose 3-block variant at 168 registers
// measured slower). A thread holds a Jacobian point, its input and a
// multiplier's temporaries: ptxas (nvcc 11.8, sm_80) gives G1 255 registers
// with 36 bytes spilled, G2 255 with the Fp2 products' arguments on the
// stack, as in the G2 MSM.
const int SUBGROUP_BLOCKS = 2;
const int SUBGROUP_THREADS = 128;

// bad[0] counts the points outside the subgroup, bad[1] is the least such
// index (all ones when none).
template <class F>
__global__ void __launch_bounds__(SUBGROUP_THREADS, SUBGROUP_BLOCKS) k_subgroup(const affine_t<F>* pts, size_t n, unsigned long long* bad) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    const affine_t<F> p = pts[i];
    if (!in_subgroup(p)) {
        atomicAdd(&bad[0], 1ull);
        atomicMin(&bad[1], (unsigned long long)i);
    }
}

template <class F>
int check_subgroup(void* handle, size_t offset, size_t n, size_t* n_bad, size_t* first_bad, char* err, size_t errlen) {
    point_set<F>* s = static_cast<point_set<F>*>(handle);
    if (!s || !n_bad || !first_bad) return fail(err, errlen, 1, "NULL handle or result");
    if (offset > s->n || n > s->n - offset)
        return fail(err, errlen, 1, "points [%zu, %zu + %zu) to check in a set of %zu", offset, offset, n, s->n);
    if (n == 0) {
        *n_bad = 0;
        *first_bad = SIZE_MAX;
        return 0;
    }
    CKR(cudaSetDevice(s->dev));
    // The counters are stream-ordered on stream 0 (the pool): a cudaFree
    // would wait for the whole device, the copies other threads run beside
    // this check included.
    unsigned long long* d = nullptr;
    CKR(cuzk::pooled_malloc((void**)&d, 2 * sizeof(unsigned long long)));
    unsigned long long h[2] = {0, ~0ull};
    cudaError_t e = cudaMemsetAsync(d, 0, sizeof(unsigned long long), 0);
    if (e == cudaSuccess) e = cudaMemsetAsync(d + 1, 0xff, sizeof(unsigned long long), 0);
    if (e == cudaSuccess) {
        const size_t nb = (n + SUBGROUP_THREADS - 1) / SUBGROUP_THREADS;
        k_subgroup<F><<<(unsigned)nb, SUBGROUP_THREADS>>>(s->pts + offset, n, d);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    cudaFreeAsync(d, 0);
    if (e != cudaSuccess) return fail(err, errlen, cuzk::cuda_code(e), "subgroup check of %zu points: %s", n, cudaGetErrorString(e));
    *n_bad = (size_t)h[0];
    *first_bad = h[0] ? offset + (size_t)h[1] : SIZE_MAX;
    return 0;
}

}  // namespace

int cuzk::g1_check_subgroup(void* handle, size_t offset, size_t n, size_t* n_bad, size_t* first_bad, char* err,
                            size_t errlen) {
    return check_subgroup<fp_t>(handle, offset, n, n_bad, first_bad, err, errlen);
}

int cuzk::g2_check_subgroup(void* handle, size_t offset, size_t n, size_t* n_bad, size_t* first_bad, char* err,
                            size_t errlen) {
    return check_subgroup<fp2_t>(handle, offset, n, n_bad, first_bad, err, errlen);
}
