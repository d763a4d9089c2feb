// case: k-means label histogram whose host counts are calloc(K, sizeof(int)) and whose device counts hold K ints; the readback copies K ints
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define NPOINTS 100000
#define K 12

__global__ void count_labels(const int *labels, int *counts, int n)
{
    __shared__ int local[K];
    if (threadIdx.x < K) local[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&local[labels[i]], 1);
    __syncthreads();
    if (threadIdx.x < K) atomicAdd(&counts[threadIdx.x], local[threadIdx.x]);
}

int main(void)
{
    int *h_labels = (int *)malloc(NPOINTS * sizeof(int));
    int *h_counts = (int *)calloc(K, sizeof(int));
    for (int i = 0; i < NPOINTS; ++i) h_labels[i] = (i * 31 + i / 7) % K;

    int *d_labels, *d_counts;
    cudaMalloc(&d_labels, NPOINTS * sizeof(int));
    cudaMalloc(&d_counts, K * sizeof(int));
    cudaMemcpy(d_labels, h_labels, NPOINTS * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset(d_counts, 0, K * sizeof(int));

    count_labels<<<(NPOINTS + 255) / 256, 256>>>(d_labels, d_counts, NPOINTS);
    cudaMemcpy(h_counts, d_counts, K * sizeof(int), cudaMemcpyDeviceToHost);

    int total = 0;
    for (int c = 0; c < K; ++c) {
        printf("cluster %2d: %d\n", c, h_counts[c]);
        total += h_counts[c];
    }
    printf("total %d (expected %d)\n", total, NPOINTS);

    cudaFree(d_labels);
    cudaFree(d_counts);
    free(h_labels);
    free(h_counts);
    return 0;
}
