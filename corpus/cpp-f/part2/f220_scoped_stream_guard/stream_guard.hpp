#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <utility>

#define GUARD_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); } while (0)

// Owns a non-blocking stream; everything enqueued on it is finished when the guard dies.
class ScopedStream {
public:
    ScopedStream() { GUARD_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    ~ScopedStream() {
        if (s_) {
            GUARD_CHECK(cudaStreamSynchronize(s_));
            GUARD_CHECK(cudaStreamDestroy(s_));
        }
    }
    ScopedStream(const ScopedStream&) = delete;
    ScopedStream& operator=(const ScopedStream&) = delete;
    ScopedStream(ScopedStream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}

    operator cudaStream_t() const { return s_; }

private:
    cudaStream_t s_ = nullptr;
};

// Times a region on a stream; elapsed() waits for the stop event.
class ScopedTimer {
public:
    explicit ScopedTimer(cudaStream_t s) : s_(s) {
        cudaEventCreate(&start_);
        cudaEventCreate(&stop_);
        cudaEventRecord(start_, s_);
    }
    float elapsed() {
        cudaEventRecord(stop_, s_);
        cudaEventSynchronize(stop_);
        float ms = 0.f;
        cudaEventElapsedTime(&ms, start_, stop_);
        return ms;
    }
    ~ScopedTimer() { cudaEventDestroy(start_); cudaEventDestroy(stop_); }

private:
    cudaStream_t s_;
    cudaEvent_t start_, stop_;
};
