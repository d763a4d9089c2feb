#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define PIPE_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

// A compute stream and a transfer stream with an event to hand work from one to the other.
class StreamPair {
public:
    StreamPair() {
        PIPE_CHECK(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
        PIPE_CHECK(cudaStreamCreateWithFlags(&transfer_, cudaStreamNonBlocking));
        PIPE_CHECK(cudaEventCreateWithFlags(&handoff_, cudaEventDisableTiming));
        PIPE_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
    }
    ~StreamPair() {
        cudaEventDestroy(done_);
        cudaEventDestroy(handoff_);
        cudaStreamDestroy(transfer_);
        cudaStreamDestroy(compute_);
    }
    cudaStream_t compute() const { return compute_; }
    cudaStream_t transfer() const { return transfer_; }
    // transfer waits for everything enqueued on compute so far
    void compute_to_transfer() {
        PIPE_CHECK(cudaEventRecord(handoff_, compute_));
        PIPE_CHECK(cudaStreamWaitEvent(transfer_, handoff_, 0));
    }
    // compute waits for everything enqueued on transfer so far
    void transfer_to_compute() {
        PIPE_CHECK(cudaEventRecord(done_, transfer_));
        PIPE_CHECK(cudaStreamWaitEvent(compute_, done_, 0));
    }
private:
    cudaStream_t compute_{}, transfer_{};
    cudaEvent_t handoff_{}, done_{};
};
