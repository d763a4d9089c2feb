// device_memory_leak (bug): a per-batch helper returns early when its upload fails and leaks
// its staging buffer; called per batch, free device memory shrinks until allocations fail. The
// program prints free device memory before and after 64 failing batches.
#include <cstdio>
#include <cuda_runtime.h>

#define BATCH_BYTES (64u << 20)

int process_batch(const char* h, size_t bytes) {
    char* d;
    if (cudaMalloc(&d, BATCH_BYTES) != cudaSuccess) {
        return -1;
    }
    if (cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
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
        // An upload larger than the buffer fails (cudaErrorInvalidValue) on the error path.
        failed += process_batch(nullptr, 1) != 0;
    }
    cudaMemGetInfo(&after, &total);
    printf("device_memory_leak_bug: %d failing batches; free device memory %zu MiB -> %zu MiB (%zu MiB lost)\n",
           failed, before >> 20, after >> 20, (before - after) >> 20);
    return 0;
}
