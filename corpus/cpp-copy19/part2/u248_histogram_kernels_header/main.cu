// case: a latency-histogram tool (kernels in hist_kernels.cuh) builds the histogram and its CDF on the GPU; the bins are copied back but the CDF the second kernel wrote is freed unread while the host prints zeros.
// expect: unread_kernel_output=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "hist_kernels.cuh"

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "cuda: %s\n", cudaGetErrorString(e)); std::exit(1); } } while (0)

int main()
{
    const int n = 1 << 21;
    std::vector<float> lat(n);
    for (int i = 0; i < n; ++i) lat[i] = 1.0f + float((i * 2654435761u) % 1000) / 100.0f;

    float* d_lat;
    unsigned int* d_bins;
    float* d_cdf;
    CUDA_CHECK(cudaMalloc(&d_lat, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_bins, HIST_BINS * sizeof(unsigned int)));
    CUDA_CHECK(cudaMalloc(&d_cdf, HIST_BINS * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_lat, lat.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_bins, 0, HIST_BINS * sizeof(unsigned int)));

    hist_shared<<<128, 256>>>(d_lat, n, 0.0f, 12.0f, d_bins);
    hist_cdf<<<1, 32>>>(d_bins, d_cdf, n);
    CUDA_CHECK(cudaGetLastError());

    unsigned int bins[HIST_BINS];
    float cdf[HIST_BINS] = {0};
    CUDA_CHECK(cudaMemcpy(bins, d_bins, sizeof(bins), cudaMemcpyDeviceToHost));
    for (int b = 0; b < HIST_BINS; b += 8)
        std::printf("bin %2d: %8u  cdf %.3f\n", b, bins[b], cdf[b]);

    CUDA_CHECK(cudaFree(d_lat));
    CUDA_CHECK(cudaFree(d_bins));
    CUDA_CHECK(cudaFree(d_cdf)); // EXPECT: unread_kernel_output
    return 0;
}
