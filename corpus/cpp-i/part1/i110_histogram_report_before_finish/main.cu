// case: a histogram class downloads its bins asynchronously and main calls report(), which reads the pinned bins, before finish() synchronizes the class's stream
// expect: missing_sync=1
#include "device_histogram.h"
#include <cmath>

int main() {
    const int n = 1 << 22;
    float* h_vals = nullptr;
    float* d_vals = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_vals, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_vals, n * sizeof(float)));
    for (int i = 0; i < n; ++i) h_vals[i] = std::sin(i * 0.37f);

    {
        DeviceHistogram hist(64, -1.0f, 1.0f);
        CUDA_CHECK(cudaMemcpyAsync(d_vals, h_vals, n * sizeof(float), cudaMemcpyHostToDevice,
                                   hist.stream()));
        hist.accumulate(d_vals, n);
        hist.download();
        hist.report();
        hist.finish();
    }

    CUDA_CHECK(cudaFree(d_vals));
    CUDA_CHECK(cudaFreeHost(h_vals));
    return 0;
}
