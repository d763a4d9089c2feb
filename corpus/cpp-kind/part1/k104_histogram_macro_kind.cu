// case: a 256-bin histogram uses macros for copy directions; the bin download uses H2D, so the host array bins is named as the device side and the device bins as the host side.
// expect: memcpy_kind_mismatch=1
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define H2D cudaMemcpyHostToDevice
#define D2H cudaMemcpyDeviceToHost
#define NBINS 256

__global__ void histo(const unsigned char* data, int n, unsigned int* bins) {
    __shared__ unsigned int local[NBINS];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

int main() {
    const int n = 16 << 20;
    unsigned char* pixels = (unsigned char*)malloc(n);
    for (int i = 0; i < n; ++i) pixels[i] = (unsigned char)(rand() & 0xff);
    unsigned int bins[NBINS];

    unsigned char* d_pixels;
    unsigned int* d_bins;
    cudaMalloc(&d_pixels, n);
    cudaMalloc(&d_bins, NBINS * sizeof(unsigned int));
    cudaMemset(d_bins, 0, NBINS * sizeof(unsigned int));

    cudaMemcpy(d_pixels, pixels, n, H2D);
    histo<<<120, NBINS>>>(d_pixels, n, d_bins);
    cudaMemcpy(bins, d_bins, sizeof(bins), H2D); // EXPECT: memcpy_kind_mismatch

    unsigned long long total = 0;
    for (int b = 0; b < NBINS; ++b) total += bins[b];
    printf("total %llu of %d\n", total, n);

    cudaFree(d_pixels);
    cudaFree(d_bins);
    free(pixels);
    return 0;
}
