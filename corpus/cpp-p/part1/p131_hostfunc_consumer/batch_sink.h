#pragma once
#include <cstdio>
#include <cstdlib>
#include <atomic>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

// Context handed to a host function enqueued after a readback: it runs on a CUDA
// thread once the stream reaches it, so the readback is complete when it reads.
struct BatchSink {
    const float* results;  // pinned
    int count;
    int batch;
    double total;
    std::atomic<int> done;
};

// Host functions must not call CUDA APIs.
static void CUDART_CB consume_batch(void* user) {
    BatchSink* sink = static_cast<BatchSink*>(user);
    double t = 0.0;
    for (int i = 0; i < sink->count; ++i) t += sink->results[i];
    sink->total = t;
    sink->done.store(1);
}
