#pragma once
#include <cuda_runtime.h>
#include <vector>
#include <cstdio>
#include <cstdlib>

#define SPH_CHECK(x)                                                             \
    do {                                                                         \
        cudaError_t e = (x);                                                     \
        if (e != cudaSuccess) {                                                  \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e),   \
                    __FILE__, __LINE__);                                         \
            abort();                                                             \
        }                                                                        \
    } while (0)

namespace sph {

// Uploads from caller-provided pinned staging memory.
template <typename T>
void upload_async(T* dst, const T* pinned_src, size_t count, cudaStream_t s) {
    SPH_CHECK(cudaMemcpyAsync(dst, pinned_src, count * sizeof(T), cudaMemcpyHostToDevice, s));
}

// Downloads straight into a std::vector for the caller's convenience.
template <typename T>
void download_async(std::vector<T>& dst, const T* src, size_t count, cudaStream_t s) {
    dst.resize(count);
    SPH_CHECK(cudaMemcpyAsync(dst.data(), src, count * sizeof(T), cudaMemcpyDeviceToHost, s));
}

}  // namespace sph
