#ifndef SCRATCH_POOL_H
#define SCRATCH_POOL_H

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define POOL_CHECK(x)                                                         \
    do {                                                                      \
        cudaError_t pe = (x);                                                 \
        if (pe != cudaSuccess) {                                              \
            std::fprintf(stderr, "pool: %s\n", cudaGetErrorString(pe));       \
            std::abort();                                                     \
        }                                                                     \
    } while (0)

// Hands out device scratch blocks that live until the pool is destroyed.
class ScratchPool {
public:
    ScratchPool() = default;
    ScratchPool(const ScratchPool&) = delete;
    ScratchPool& operator=(const ScratchPool&) = delete;
    ~ScratchPool() {
        for (void* p : blocks_) cudaFree(p);
    }

    template <typename T>
    T* acquire(std::size_t count) {
        void* p = nullptr;
        POOL_CHECK(cudaMalloc(&p, count * sizeof(T)));
        blocks_.push_back(p);
        bytes_ += count * sizeof(T);
        return static_cast<T*>(p);
    }

    std::size_t bytes_in_use() const { return bytes_; }

private:
    std::vector<void*> blocks_;
    std::size_t bytes_ = 0;
};

#endif
