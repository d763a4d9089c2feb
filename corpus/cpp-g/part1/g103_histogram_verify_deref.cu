// case: Parboil-style 256-bin histogram; after an early return for --no-verify, the verification loop sums the cudaMalloc'd d_hist directly on the host instead of a copied-back array.
// expect: host_deref_device_ptr=1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#define NBINS      256
#define NPIXELS    (4096 * 4096)
#define THREADS    512

#define SAFE_CALL(x) { cudaError_t e = (x); if (e != cudaSuccess) { \
    printf("error %s at line %d\n", cudaGetErrorString(e), __LINE__); exit(1); } }

__global__ void histo_kernel(const unsigned char *img, unsigned int *hist, int n)
{
    __shared__ unsigned int s_hist[NBINS];
    for (int b = threadIdx.x; b < NBINS; b += blockDim.x) s_hist[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&s_hist[img[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < NBINS; b += blockDim.x)
        atomicAdd(&hist[b], s_hist[b]);
}

unsigned char *h_img;
unsigned char *d_img;
unsigned int  *d_hist;

int main(int argc, char *argv[])
{
    int verify = !(argc > 1 && strcmp(argv[1], "--no-verify") == 0);
    size_t img_bytes = (size_t)NPIXELS;

    h_img = (unsigned char *)malloc(img_bytes);
    srand(7);
    for (size_t i = 0; i < img_bytes; i++) h_img[i] = (unsigned char)(rand() & 0xff);

    SAFE_CALL(cudaMalloc((void **)&d_img, img_bytes));
    SAFE_CALL(cudaMalloc((void **)&d_hist, NBINS * sizeof(unsigned int)));
    SAFE_CALL(cudaMemcpy(d_img, h_img, img_bytes, cudaMemcpyHostToDevice));
    SAFE_CALL(cudaMemset(d_hist, 0, NBINS * sizeof(unsigned int)));

    histo_kernel<<<120, THREADS>>>(d_img, d_hist, NPIXELS);
    SAFE_CALL(cudaDeviceSynchronize());

    if (!verify) {
        cudaFree(d_hist);
        cudaFree(d_img);
        free(h_img);
        return 0;
    }

    unsigned long long total = 0;
    for (int b = 0; b < NBINS; b++)
        total += d_hist[b];
    printf("histogram total %llu (expected %d): %s\n", total, NPIXELS,
           total == (unsigned long long)NPIXELS ? "PASS" : "FAIL");

    cudaFree(d_hist);
    cudaFree(d_img);
    free(h_img);
    return 0;
}
