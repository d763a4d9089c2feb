// case: a GPU ring-buffer logger allocated through helper functions flushes its device log into a pinned buffer in its cleanup routine with cudaMemcpyAsync(.., cudaMemcpyDefault, ..), which can never contradict the pointers.
// expect: none
#include <cstdio>
#include <cuda_runtime.h>

struct GpuLog {
    int* d_entries;
    int* h_entries;
    int capacity;
    cudaStream_t stream;
};

static void log_create(GpuLog* log, int capacity) {
    log->capacity = capacity;
    cudaMalloc(&log->d_entries, capacity * sizeof(int));
    cudaMemset(log->d_entries, 0, capacity * sizeof(int));
    cudaMallocHost(&log->h_entries, capacity * sizeof(int));
    cudaStreamCreate(&log->stream);
}

__global__ void work(int* entries, int capacity, int tick) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) entries[tick % capacity] = tick * 10;
}

static void log_destroy(GpuLog* log) {
    // final flush before freeing: direction inferred from the pointers
    cudaMemcpyAsync(log->h_entries, log->d_entries, log->capacity * sizeof(int),
                    cudaMemcpyDefault, log->stream);
    cudaStreamSynchronize(log->stream);
    for (int i = 0; i < 4 && i < log->capacity; ++i) printf("entry %d: %d\n", i, log->h_entries[i]);
    cudaStreamDestroy(log->stream);
    cudaFree(log->d_entries);
    cudaFreeHost(log->h_entries);
}

int main() {
    GpuLog log;
    log_create(&log, 1024);
    for (int tick = 0; tick < 100; ++tick) work<<<1, 32, 0, log.stream>>>(log.d_entries, log.capacity, tick);
    log_destroy(&log);
    return 0;
}
