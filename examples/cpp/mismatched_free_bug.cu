// mismatched_free, the bug: memory released by a function of another allocator than the one
// that made it.
//
// 1. pinned host memory (cudaMallocHost) released with cudaFree;
// 2. device memory (cudaMalloc) released with cudaFreeHost;
// 3. cudaHostUnregister of memory that was never registered;
// 4. a __device__ variable's address (cudaGetSymbolAddress) released with cudaFree.
// (free() of pinned memory is not run: it corrupts the C heap.) Each wrong release is refused and
// the memory leaks, which release paths that ignore the status never notice. On an H100 (driver
// 580) the driver API's counterparts each returned CUDA_ERROR_INVALID_VALUE.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                  \
                    cudaGetErrorString(err_));                                             \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

__device__ float table[256];

// Prints what a call returned.
static cudaError_t report(const char* call, cudaError_t e) {
    printf("  %-40s -> %s\n", call, cudaGetErrorName(e));
    return e;
}

int main() {
    const size_t bytes = 1 << 20;
    int n = 0;

    float* pinned;
    CHECK(cudaMallocHost(&pinned, bytes));
    n += report("cudaFree(pinned host memory)", cudaFree(pinned)) != cudaSuccess;
    report("cudaFreeHost(it), the right one", cudaFreeHost(pinned));

    float* dev;
    CHECK(cudaMalloc(&dev, bytes));
    n += report("cudaFreeHost(device memory)", cudaFreeHost(dev)) != cudaSuccess;
    report("cudaFree(it), the right one", cudaFree(dev));

    float* staging;
    CHECK(cudaMallocHost(&staging, bytes));
    n += report("cudaHostUnregister(never registered)", cudaHostUnregister(staging)) != cudaSuccess;
    report("cudaFreeHost(it)", cudaFreeHost(staging));

    void* global;
    CHECK(cudaGetSymbolAddress(&global, table));
    n += report("cudaFree(a __device__ variable)", cudaFree(global)) != cudaSuccess;

    printf("mismatched_free_bug: %d of 4 releases were refused (the memory stays allocated)\n", n);
    return 0;
}
