// device_memory_leak (fixed): the error path frees the staging buffer too.
#include <cstdio>
#include <cuda_runtime.h>

#define BATCH_BYTES (64u << 20)

int process_batch(const char* h, size_t bytes) {
    char* d;
    if (cudaMalloc(&d, BATCH_BYTES) != cudaSuccess) {
        return -1;
    }
    if (cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
        cudaFree(d);
        return -2;
    }
    cudaFree(d);
    return 0;
}

int main() {
    size_t before, after, total;
    cudaMemGetInfo(&before, &total);
    int failed = 0;
    for (int i = 0; i < 64; ++i) {
        failed += process_batch(nullptr, 1) != 0;
    }
    cudaMemGetInfo(&after, &total);
    printf("device_memory_leak_fixed: %d failing batches; free device memory %zu MiB -> %zu MiB\n",
           failed, before >> 20, after >> 20);
    return 0;
}
