// mismatched_free, the fix: each memory released by its own allocator's function.
//
// The same four cases as mismatched_free_bug.cu: cudaMallocHost memory released with
// cudaFreeHost, cudaMalloc memory with cudaFree, cudaHostUnregister only of memory that
// cudaHostRegister page-locked (malloc'd memory, then free), and a __device__ variable left to
// its module (written and read through cudaMemcpyToSymbol / cudaMemcpyFromSymbol, never freed).
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
    n += report("cudaFreeHost(pinned host memory)", cudaFreeHost(pinned)) != cudaSuccess;

    float* dev;
    CHECK(cudaMalloc(&dev, bytes));
    n += report("cudaFree(device memory)", cudaFree(dev)) != cudaSuccess;

    float* staging = (float*)malloc(bytes);
    CHECK(cudaHostRegister(staging, bytes, cudaHostRegisterDefault));
    n += report("cudaHostUnregister(registered)", cudaHostUnregister(staging)) != cudaSuccess;
    free(staging);

    float values[256], back[256];
    for (int i = 0; i < 256; ++i) values[i] = (float)i;
    CHECK(cudaMemcpyToSymbol(table, values, sizeof(values)));
    CHECK(cudaMemcpyFromSymbol(back, table, sizeof(back)));
    printf("  %-40s -> table[255] = %g\n", "the __device__ variable, not freed", back[255]);
    n += back[255] != 255.0f;

    printf("mismatched_free_fixed: %d of the 4 cases failed\n", n);
    return 0;
}
