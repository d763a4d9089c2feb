#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                   \
    do {                                                                   \
        cudaError_t st = (call);                                           \
        if (st != cudaSuccess) {                                           \
            fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(st)); \
            std::abort();                                                  \
        }                                                                  \
    } while (0)

// Page-locks an existing host range for the lifetime of the object.
class ScopedHostRegister {
public:
    ScopedHostRegister(void* ptr, size_t bytes) : ptr_(ptr) {
        CUDA_CHECK(cudaHostRegister(ptr_, bytes, cudaHostRegisterDefault));
    }
    ~ScopedHostRegister() { cudaHostUnregister(ptr_); }
    ScopedHostRegister(const ScopedHostRegister&) = delete;
    ScopedHostRegister& operator=(const ScopedHostRegister&) = delete;

private:
    void* ptr_;
};
