// write_combined_host_read, the bug: a device-to-host readback into write-combined pinned memory
// (cudaHostAllocWriteCombined), then read on the host.
//
// Write-combined memory is not cached by the CPU: it makes host-to-device staging fast, but
// every host read of it goes over the bus, uncached ("prohibitively slow", CUDA Programming
// Guide; cudarc issue #580: 1.287 s against 18.8 ms for the same reads). The program reads 64 MiB
// back (events time it) and sums it on the host twice: every word, and one word per 64-byte
// line (best of 5 each). In KVM guests (this project's H100 and H200 machines) the host keeps
// ordinary RAM write-back and the reads were as fast as in write_combined_host_read_fixed.cu.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                  \
                    cudaGetErrorString(err_));                                             \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

// Sums every `stride`-th of the n words at p; returns the best time of 5 in ms.
static double time_sum(const unsigned* p, size_t n, size_t stride, unsigned long long* sum) {
    double best = 1e30;
    for (int run = 0; run < 5; ++run) {
        auto t0 = std::chrono::steady_clock::now();
        unsigned long long s = 0;
        for (size_t i = 0; i < n; i += stride) s += p[i];
        std::chrono::duration<double, std::milli> dt = std::chrono::steady_clock::now() - t0;
        if (dt.count() < best) best = dt.count();
        *sum = s;
    }
    return best;
}

int main() {
    const size_t n = 16u << 20, bytes = n * sizeof(unsigned); // 64 MiB
    std::vector<unsigned> ones(n, 1);
    unsigned *dev, *host;
    CHECK(cudaMalloc(&dev, bytes));
    CHECK(cudaMemcpy(dev, ones.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaHostAlloc(&host, bytes, cudaHostAllocWriteCombined));

    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    float copy_ms = 1e30f;
    for (int run = 0; run < 5; ++run) {
        CHECK(cudaEventRecord(start));
        CHECK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (ms < copy_ms) copy_ms = ms;
    }
    unsigned long long sum, line_sum;
    double seq_ms = time_sum(host, n, 1, &sum);
    double line_ms = time_sum(host, n, 16, &line_sum);

    printf("write_combined_host_read_bug: 64 MiB readback into write-combined memory %.2f ms "
           "(%.1f GB/s); host sum of every word %.2f ms, of one word per 64-byte line %.2f ms "
           "(sums %llu, %llu)\n", copy_ms, bytes / (copy_ms * 1e-3) / 1e9, seq_ms, line_ms, sum,
           line_sum);
    CHECK(cudaFreeHost(host));
    CHECK(cudaFree(dev));
    return 0;
}
