// case: histogram equalization where the host builds the lookup table but never copies it to d_lut, so the remap kernel reads an uninitialized table.
// expect: uninitialized_device_read=1
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CUDA_SAFE(call) { cudaError_t e = call; if (e != cudaSuccess) { \
    printf("Error %s line %d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(-1); } }

#define IMG_W 1024
#define IMG_H 768
#define NPIX (IMG_W * IMG_H)
#define BINS 256

__global__ void histogram256(const unsigned char* img, unsigned int* hist, int n)
{
    __shared__ unsigned int local[BINS];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[img[i]], 1u);
    __syncthreads();
    atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}

__global__ void remap(const unsigned char* img, const unsigned char* lut, unsigned char* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = lut[img[i]];
}

int main(void)
{
    unsigned char* h_img = (unsigned char*)malloc(NPIX);
    unsigned char* h_out = (unsigned char*)malloc(NPIX);
    unsigned int h_hist[BINS];
    unsigned char h_lut[BINS];
    for (int i = 0; i < NPIX; i++) h_img[i] = (unsigned char)((i % IMG_W) / 8 + 64);

    unsigned char *d_img, *d_out, *d_lut;
    unsigned int* d_hist;
    CUDA_SAFE(cudaMalloc((void**)&d_img, NPIX));
    CUDA_SAFE(cudaMalloc((void**)&d_out, NPIX));
    CUDA_SAFE(cudaMalloc((void**)&d_lut, BINS));
    CUDA_SAFE(cudaMalloc((void**)&d_hist, BINS * sizeof(unsigned int)));

    CUDA_SAFE(cudaMemcpy(d_img, h_img, NPIX, cudaMemcpyHostToDevice));
    CUDA_SAFE(cudaMemset(d_hist, 0, BINS * sizeof(unsigned int)));
    histogram256<<<64, BINS>>>(d_img, d_hist, NPIX);
    CUDA_SAFE(cudaMemcpy(h_hist, d_hist, sizeof(h_hist), cudaMemcpyDeviceToHost));

    unsigned long cdf = 0;
    for (int b = 0; b < BINS; b++) {
        cdf += h_hist[b];
        h_lut[b] = (unsigned char)((cdf * 255) / NPIX);
    }

    remap<<<(NPIX + 255) / 256, 256>>>(d_img, d_lut, d_out, NPIX); // EXPECT: uninitialized_device_read
    CUDA_SAFE(cudaMemcpy(h_out, d_out, NPIX, cudaMemcpyDeviceToHost));
    printf("out[0]=%d out[last]=%d\n", h_out[0], h_out[NPIX - 1]);

    CUDA_SAFE(cudaFree(d_img));
    CUDA_SAFE(cudaFree(d_out));
    CUDA_SAFE(cudaFree(d_lut));
    CUDA_SAFE(cudaFree(d_hist));
    free(h_img);
    free(h_out);
    return 0;
}
