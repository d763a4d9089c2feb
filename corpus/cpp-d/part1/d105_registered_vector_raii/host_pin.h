// Small RAII helpers shared by the signal-processing tools.
#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

// Page-locks memory the caller already owns, for the lifetime of the object.
class HostPin {
public:
    HostPin(void* ptr, size_t bytes) : ptr_(ptr)
    {
        CUDA_CHECK(cudaHostRegister(ptr_, bytes, cudaHostRegisterPortable));
    }
    ~HostPin()
    {
        if (ptr_) cudaHostUnregister(ptr_);
    }
    HostPin(const HostPin&) = delete;
    HostPin& operator=(const HostPin&) = delete;

private:
    void* ptr_;
};

// Waits for everything queued on a stream when it goes out of scope.
class StreamJoin {
public:
    explicit StreamJoin(cudaStream_t s) : s_(s) {}
    ~StreamJoin() { cudaStreamSynchronize(s_); }
    StreamJoin(const StreamJoin&) = delete;
    StreamJoin& operator=(const StreamJoin&) = delete;

private:
    cudaStream_t s_;
};
