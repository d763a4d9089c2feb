// case: a C-style k-means step uses TO_GPU / TO_CPU macros for copy kinds and a CK error macro; every copy is written with the matching macro and pointer order.
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define TO_GPU cudaMemcpyHostToDevice
#define TO_CPU cudaMemcpyDeviceToHost
#define CK(x) do { if ((x) != cudaSuccess) { fprintf(stderr, "fail: %s\n", #x); exit(1); } } while (0)

__global__ void assign(const float2* pts, const float2* cent, int* label, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float best = 1e30f; int bi = 0;
    for (int c = 0; c < k; ++c) {
        float dx = pts[i].x - cent[c].x, dy = pts[i].y - cent[c].y, d = dx * dx + dy * dy;
        if (d < best) { best = d; bi = c; }
    }
    label[i] = bi;
}

int main(void) {
    const int n = 100000, k = 8;
    float2* pts = (float2*)malloc(n * sizeof(float2));
    float2 cent[k];
    int* label = (int*)malloc(n * sizeof(int));
    for (int i = 0; i < n; ++i) pts[i] = make_float2((i % 1000) * 0.001f, (i / 1000) * 0.01f);
    for (int c = 0; c < k; ++c) cent[c] = pts[c * (n / k)];

    float2 *d_pts, *d_cent;
    int* d_label;
    CK(cudaMalloc((void**)&d_pts, n * sizeof(float2)));
    CK(cudaMalloc((void**)&d_cent, k * sizeof(float2)));
    CK(cudaMalloc((void**)&d_label, n * sizeof(int)));
    CK(cudaMemcpy(d_pts, pts, n * sizeof(float2), TO_GPU));
    CK(cudaMemcpy(d_cent, cent, sizeof(cent), TO_GPU));

    assign<<<(n + 255) / 256, 256>>>(d_pts, d_cent, d_label, n, k);
    CK(cudaGetLastError());
    CK(cudaMemcpy(label, d_label, n * sizeof(int), TO_CPU));

    int counts[k] = {0};
    for (int i = 0; i < n; ++i) counts[label[i]]++;
    for (int c = 0; c < k; ++c) printf("cluster %d: %d\n", c, counts[c]);

    CK(cudaFree(d_pts));
    CK(cudaFree(d_cent));
    CK(cudaFree(d_label));
    free(pts);
    free(label);
    return 0;
}
