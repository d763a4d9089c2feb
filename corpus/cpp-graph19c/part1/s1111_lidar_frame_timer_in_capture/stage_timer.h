#pragma once
#include <cuda_runtime.h>
#include "cuda_check.h"

// Running GPU time of one stage, measured with a pair of events the owner creates.
struct StageStats {
    const char* name = "";
    cudaEvent_t start = nullptr;
    cudaEvent_t stop = nullptr;
    double total_ms = 0.0;
    int samples = 0;

    double mean_ms() const { return samples > 0 ? total_ms / samples : 0.0; }
};

inline void create_stage_events(StageStats& stats, const char* name) {
    stats.name = name;
    CUDA_CHECK(cudaEventCreate(&stats.start));
    CUDA_CHECK(cudaEventCreate(&stats.stop));
}

inline void destroy_stage_events(StageStats& stats) {
    CUDA_CHECK(cudaEventDestroy(stats.start));
    CUDA_CHECK(cudaEventDestroy(stats.stop));
}

// Times the work enqueued on `stream` during its lifetime; adds the GPU time to `stats`
// when it goes out of scope (waiting for that work to finish).
class ScopedStageTimer {
public:
    ScopedStageTimer(StageStats& stats, cudaStream_t stream) : stats_(stats), stream_(stream) {
        CUDA_CHECK(cudaEventRecord(stats_.start, stream_));
    }

    ~ScopedStageTimer() {
        CUDA_CHECK(cudaEventRecord(stats_.stop, stream_));
        CUDA_CHECK(cudaEventSynchronize(stats_.stop));  // EXPECT: uncapturable_call
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, stats_.start, stats_.stop));
        stats_.total_ms += ms;
        stats_.samples += 1;
    }

    ScopedStageTimer(const ScopedStageTimer&) = delete;
    ScopedStageTimer& operator=(const ScopedStageTimer&) = delete;

private:
    StageStats& stats_;
    cudaStream_t stream_;
};
