// write_combined_host_read, the fix: read back into pinned memory that is not write-combined
// (cudaMallocHost, or cudaHostAlloc without cudaHostAllocWriteCombined), which the CPU caches.
//
// The same measurement as write_combined_host_read_bug.cu: a 64 MiB readback (events), then a
// host sum of every word and of one word per 64-byte line, best of 5 each.
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
    CHECK(cudaMallocHost(&host, bytes)); // cached, not write-combined

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

    printf("write_combined_host_read_fixed: 64 MiB readback into cached pinned memory %.2f ms "
           "(%.1f GB/s); host sum of every word %.2f ms, of one word per 64-byte line %.2f ms "
           "(sums %llu, %llu)\n", copy_ms, bytes / (copy_ms * 1e-3) / 1e9, seq_ms, line_ms, sum,
           line_sum);
    CHECK(cudaFreeHost(host));
    CHECK(cudaFree(dev));
    return 0;
}
