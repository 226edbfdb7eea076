// A streamer (cuzk_cuda.h's cuzk_cuda_stream_*): two device buffers of
// chunk points of one group, each filled by a put (on the copy stream when
// the host memory is page-locked, its event recorded) and summed by an MSM
// that waits for that event (msm/entry.cuh's stream_msm, per group).
#pragma once
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include <atomic>

namespace cuzk {

struct streamer {
    int dev, group;
    size_t chunk, point_bytes;
    void* pts[2];
    size_t n[2];
    cudaEvent_t ready[2];
    // The copies' timing (cuzk_cuda_stream_take_stats): begin[slot] is
    // recorded before a slot's direct copy and ready[slot] after it, read
    // once the MSM that waited for it is done (timed[slot]); staged copies
    // are timed on the host.
    cudaEvent_t begin[2];
    bool timed[2];
    size_t timed_bytes[2];
    std::atomic<uint64_t> copied_bytes{0}, copy_ns{0};
    // A set's MSM summed chunk by chunk (cuzk_cuda_stream_msm with set_n):
    // the buckets (acc_bytes allocated, kept for the next set), the open
    // set's size (0: none open), the offset its next chunk starts at, and
    // its window size and count.
    void* acc = nullptr;
    size_t acc_bytes = 0, acc_set = 0, acc_next = 0;
    int acc_c = 0, acc_nw = 0;
};

// stream_copied adds a slot's direct copy, done, to the copy timing.
void stream_copied(streamer* s, int slot);

// The MSM of a slot, per group (msm_g1.cu, msm_g2.cu).
int stream_msm_g1(streamer* s, int slot, void* scalars, size_t offset, size_t n, size_t set_n, void* result, char* err,
                  size_t errlen);
int stream_msm_g2(streamer* s, int slot, void* scalars, size_t offset, size_t n, size_t set_n, void* result, char* err,
                  size_t errlen);

}  // namespace cuzk
