// case: a kernel writes its histogram into cudaMallocManaged memory and the host reads the bins directly after cudaDeviceSynchronize (a host access reads it) before cudaFree.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s\n", cudaGetErrorString(e)); std::exit(1); } } while (0)

#define NUM_BINS 16
#define NUM_VALUES (1 << 20)

__global__ void digit_histogram(const unsigned int* values, int n, unsigned int* bins)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[values[i] & (NUM_BINS - 1)], 1u);
}

int main()
{
    unsigned int* values;
    unsigned int* bins;
    CUDA_CHECK(cudaMallocManaged(&values, NUM_VALUES * sizeof(unsigned int)));
    CUDA_CHECK(cudaMallocManaged(&bins, NUM_BINS * sizeof(unsigned int)));
    for (int i = 0; i < NUM_VALUES; ++i) values[i] = i * 2654435761u;
    for (int b = 0; b < NUM_BINS; ++b) bins[b] = 0;

    digit_histogram<<<(NUM_VALUES + 255) / 256, 256>>>(values, NUM_VALUES, bins);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    unsigned int total = 0;
    for (int b = 0; b < NUM_BINS; ++b) {
        std::printf("bin %2d: %u\n", b, bins[b]);
        total += bins[b];
    }
    if (total != NUM_VALUES) {
        std::fprintf(stderr, "lost %u values\n", NUM_VALUES - total);
    }

    CUDA_CHECK(cudaFree(values));
    CUDA_CHECK(cudaFree(bins));
    return 0;
}
