// case: k-means iteration whose host cluster-count array is calloc'd for K ints but read back with the K*DIM count used for the centroids
// expect: copy_out_of_bounds=1
#include <stdio.h>
#include <stdlib.h>
#include <float.h>
#include <cuda_runtime.h>

#define NPOINTS 65536
#define DIM 8
#define K 16

__global__ void assign_and_accumulate(const float *pts, const float *cent, float *sums, int *counts, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int best = 0;
    float best_d = FLT_MAX;
    for (int c = 0; c < K; ++c) {
        float d = 0.0f;
        for (int k = 0; k < DIM; ++k) {
            float t = pts[i * DIM + k] - cent[c * DIM + k];
            d += t * t;
        }
        if (d < best_d) { best_d = d; best = c; }
    }
    for (int k = 0; k < DIM; ++k) atomicAdd(&sums[best * DIM + k], pts[i * DIM + k]);
    atomicAdd(&counts[best], 1);
}

int main(void)
{
    float *h_pts = (float *)malloc(NPOINTS * DIM * sizeof(float));
    float *h_cent = (float *)calloc(K * DIM, sizeof(float));
    int *h_counts = (int *)calloc(K, sizeof(int));
    for (int i = 0; i < NPOINTS * DIM; ++i) h_pts[i] = (float)(rand() % 1000) / 100.0f;
    for (int c = 0; c < K * DIM; ++c) h_cent[c] = h_pts[c * 37];

    float *d_pts, *d_cent, *d_sums;
    int *d_counts;
    cudaMalloc(&d_pts, NPOINTS * DIM * sizeof(float));
    cudaMalloc(&d_cent, K * DIM * sizeof(float));
    cudaMalloc(&d_sums, K * DIM * sizeof(float));
    cudaMalloc(&d_counts, K * DIM * sizeof(int));

    cudaMemcpy(d_pts, h_pts, NPOINTS * DIM * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_cent, h_cent, K * DIM * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_sums, 0, K * DIM * sizeof(float));
    cudaMemset(d_counts, 0, K * DIM * sizeof(int));

    assign_and_accumulate<<<NPOINTS / 256, 256>>>(d_pts, d_cent, d_sums, d_counts, NPOINTS);

    cudaMemcpy(h_cent, d_sums, K * DIM * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(h_counts, d_counts, K * DIM * sizeof(int), cudaMemcpyDeviceToHost); // EXPECT: copy_out_of_bounds

    for (int c = 0; c < K; ++c) {
        if (h_counts[c] == 0) continue;
        for (int k = 0; k < DIM; ++k) h_cent[c * DIM + k] /= (float)h_counts[c];
    }
    printf("cluster 0: %d points, centroid x = %f\n", h_counts[0], h_cent[0]);

    cudaFree(d_pts);
    cudaFree(d_cent);
    cudaFree(d_sums);
    cudaFree(d_counts);
    free(h_pts);
    free(h_cent);
    free(h_counts);
    return 0;
}
