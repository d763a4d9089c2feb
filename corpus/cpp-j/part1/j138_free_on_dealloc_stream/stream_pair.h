#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define SP_CHECK(x) do { cudaError_t e__ = (x); if (e__ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e__)); std::exit(1); } } while (0)

// One stream for work, one for stream-ordered frees, as in the engine's allocator.
struct StreamPair {
    cudaStream_t exec = nullptr;
    cudaStream_t dealloc = nullptr;

    StreamPair() {
        SP_CHECK(cudaStreamCreateWithFlags(&exec, cudaStreamNonBlocking));
        SP_CHECK(cudaStreamCreateWithFlags(&dealloc, cudaStreamNonBlocking));
    }
    ~StreamPair() {
        cudaStreamSynchronize(exec);
        cudaStreamSynchronize(dealloc);
        cudaStreamDestroy(dealloc);
        cudaStreamDestroy(exec);
    }
    StreamPair(const StreamPair&) = delete;
    StreamPair& operator=(const StreamPair&) = delete;
};
