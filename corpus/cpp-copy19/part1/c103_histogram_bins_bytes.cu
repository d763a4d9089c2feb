// case: 8-bit image histogram whose bin buffer is allocated with NUM_BINS bytes instead of NUM_BINS counters, so both the clearing memset and the readback run past it
// expect: copy_out_of_bounds=2
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define IMG_W 1920
#define IMG_H 1080
#define NUM_BINS 256
#define BLOCK 256

#define CHECK(x)                                                            \
    {                                                                       \
        cudaError_t e = (x);                                                \
        if (e != cudaSuccess) {                                             \
            printf("CUDA failure %s at line %d\n", cudaGetErrorString(e), __LINE__); \
            exit(1);                                                        \
        }                                                                   \
    }

__global__ void histogram_shared(const unsigned char *img, int n, unsigned int *bins)
{
    __shared__ unsigned int local[NUM_BINS];
    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[img[i]], 1u);
    __syncthreads();

    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
        atomicAdd(&bins[b], local[b]);
}

int main(void)
{
    const int npix = IMG_W * IMG_H;
    unsigned char *h_img = (unsigned char *)malloc(npix);
    unsigned int h_bins[NUM_BINS];
    for (int i = 0; i < npix; ++i)
        h_img[i] = (unsigned char)((i * 2654435761u) >> 24);

    unsigned char *d_img;
    unsigned int *d_bins;
    CHECK(cudaMalloc((void **)&d_img, IMG_W * IMG_H));
    CHECK(cudaMalloc((void **)&d_bins, NUM_BINS));

    CHECK(cudaMemcpy(d_img, h_img, IMG_W * IMG_H, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_bins, 0, NUM_BINS * sizeof(unsigned int))); // EXPECT: copy_out_of_bounds

    histogram_shared<<<120, BLOCK>>>(d_img, npix, d_bins);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(h_bins, d_bins, NUM_BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost)); // EXPECT: copy_out_of_bounds

    unsigned long long total = 0;
    for (int b = 0; b < NUM_BINS; ++b) total += h_bins[b];
    printf("pixels counted: %llu of %d\n", total, npix);

    CHECK(cudaFree(d_img));
    CHECK(cudaFree(d_bins));
    free(h_img);
    return 0;
}
