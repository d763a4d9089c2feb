// missing_sync, the bug: the host reads the destination of an async device-to-host copy before
// synchronizing the stream.
//
// A kernel fills 64M ints (256 MiB) with the run number r, cudaMemcpyAsync copies them into
// pinned host memory, and the host checks the last 1024 values right away. The copy takes
// milliseconds and the host is there in microseconds: it sees what the buffer held before (-1,
// then the previous run's value). Nothing fails and compute-sanitizer reports 0 errors; on an
// H200 (CUDA 13.0) 5 runs of 5 read stale data.
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

__global__ void fill(int* d, size_t n, int v) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) d[i] = v;
}

// How many of the n values at p differ from v.
static size_t count_not(const int* p, size_t n, int v) {
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) k += (p[i] != v);
    return k;
}

int main() {
    const size_t n = 64u << 20; // 256 MiB of ints
    const size_t tail = 1024;
    const int runs = 5;
    int seen[tail];
    int *h, *d;
    CHECK(cudaMallocHost(&h, n * sizeof(int)));
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    for (size_t i = 0; i < n; ++i) h[i] = -1;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));

    int stale_runs = 0;
    for (int r = 0; r < runs; ++r) {
        fill<<<(n + 255) / 256, 256, 0, s>>>(d, n, r);
        CHECK(cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
        for (size_t i = 0; i < tail; ++i) seen[i] = h[n - tail + i]; // what the host sees now
        CHECK(cudaStreamSynchronize(s));
        size_t stale = count_not(seen, tail, r), after = count_not(h + n - tail, tail, r);
        if (stale > 0) ++stale_runs;
        printf("run %d: before cudaStreamSynchronize the tail held %d (%zu of %zu values stale); "
               "after it, %zu stale\n", r, seen[0], stale, tail, after);
    }
    printf("missing_sync_bug: %d of %d runs read stale data (H200, CUDA 13.0: 5 of 5)\n",
           stale_runs, runs);
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
