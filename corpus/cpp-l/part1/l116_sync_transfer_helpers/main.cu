// case: a k-means assignment step uses header helpers: upload_async enqueues pinned uploads, download_blocking copies the labels back and synchronizes the stream before returning, and drain() waits before the host rewrites the pinned centroids, so every host access follows a wait on the right stream.
// expect: none
#include <cuda_runtime.h>
#include <cfloat>
#include <cstdio>
#include <cstdlib>

#include "xfer.cuh"

#define CUDA_TRY(call)                                                           \
    do {                                                                         \
        cudaError_t e_ = (call);                                                 \
        if (e_ != cudaSuccess) {                                                 \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));          \
            return 1;                                                            \
        }                                                                        \
    } while (0)

constexpr int kPoints = 1 << 20;
constexpr int kDim = 8;
constexpr int kK = 16;
constexpr int kIters = 5;

__global__ void assign(const float* pts, const float* cent, int* labels, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float best = FLT_MAX;
    int arg = 0;
    for (int c = 0; c < kK; ++c) {
        float d = 0.f;
        for (int k = 0; k < kDim; ++k) {
            float t = pts[i * kDim + k] - cent[c * kDim + k];
            d += t * t;
        }
        if (d < best) { best = d; arg = c; }
    }
    labels[i] = arg;
}

int main() {
    const size_t pts_bytes = size_t(kPoints) * kDim * sizeof(float);
    const size_t cent_bytes = size_t(kK) * kDim * sizeof(float);
    const size_t lab_bytes = size_t(kPoints) * sizeof(int);

    float *h_pts, *h_cent;
    int* h_labels;
    CUDA_TRY(cudaMallocHost(&h_pts, pts_bytes));
    CUDA_TRY(cudaMallocHost(&h_cent, cent_bytes));
    CUDA_TRY(cudaMallocHost(&h_labels, lab_bytes));
    for (size_t i = 0; i < size_t(kPoints) * kDim; ++i) h_pts[i] = float((i * 16807u) % 1000) * 1e-2f;
    for (int c = 0; c < kK; ++c)
        for (int k = 0; k < kDim; ++k) h_cent[c * kDim + k] = h_pts[size_t(c) * 997 * kDim + k];

    float *d_pts, *d_cent;
    int* d_labels;
    CUDA_TRY(cudaMalloc(&d_pts, pts_bytes));
    CUDA_TRY(cudaMalloc(&d_cent, cent_bytes));
    CUDA_TRY(cudaMalloc(&d_labels, lab_bytes));

    cudaStream_t s;
    CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_TRY(upload_async(d_pts, h_pts, pts_bytes, s));

    double sums[kK][kDim];
    int counts[kK];
    for (int it = 0; it < kIters; ++it) {
        CUDA_TRY(upload_async(d_cent, h_cent, cent_bytes, s));
        assign<<<(kPoints + 255) / 256, 256, 0, s>>>(d_pts, d_cent, d_labels, kPoints);
        CUDA_TRY(cudaGetLastError());
        CUDA_TRY(download_blocking(h_labels, d_labels, lab_bytes, s));

        for (int c = 0; c < kK; ++c) {
            counts[c] = 0;
            for (int k = 0; k < kDim; ++k) sums[c][k] = 0.0;
        }
        for (int i = 0; i < kPoints; ++i) {
            const int c = h_labels[i];
            ++counts[c];
            for (int k = 0; k < kDim; ++k) sums[c][k] += h_pts[size_t(i) * kDim + k];
        }
        CUDA_TRY(drain(s));
        for (int c = 0; c < kK; ++c)
            if (counts[c] > 0)
                for (int k = 0; k < kDim; ++k) h_cent[c * kDim + k] = float(sums[c][k] / counts[c]);
    }
    printf("cluster 0 holds %d points\n", counts[0]);

    CUDA_TRY(cudaStreamDestroy(s));
    CUDA_TRY(cudaFree(d_pts));
    CUDA_TRY(cudaFree(d_cent));
    CUDA_TRY(cudaFree(d_labels));
    CUDA_TRY(cudaFreeHost(h_pts));
    CUDA_TRY(cudaFreeHost(h_cent));
    CUDA_TRY(cudaFreeHost(h_labels));
    return 0;
}
