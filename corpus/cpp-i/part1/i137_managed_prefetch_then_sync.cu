// case: a k-means assignment step uses managed memory, prefetches it to the GPU, runs the kernel, prefetches the labels back to the CPU and synchronizes the stream before the host counts cluster sizes
// expect: none
#include <cuda_runtime.h>
#include <cfloat>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

constexpr int K = 8;

__global__ void assign(const float2* pts, int n, const float2* centers, int* labels) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float best = FLT_MAX;
    int arg = 0;
    for (int k = 0; k < K; ++k) {
        float dx = pts[i].x - centers[k].x, dy = pts[i].y - centers[k].y;
        float d = dx * dx + dy * dy;
        if (d < best) { best = d; arg = k; }
    }
    labels[i] = arg;
}

int main() {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    const int n = 1 << 22;

    float2 *pts, *centers;
    int* labels;
    CUDA_CHECK(cudaMallocManaged(&pts, n * sizeof(float2)));
    CUDA_CHECK(cudaMallocManaged(&centers, K * sizeof(float2)));
    CUDA_CHECK(cudaMallocManaged(&labels, n * sizeof(int)));
    for (int i = 0; i < n; ++i) pts[i] = make_float2((i % 2048) / 2048.f, (i / 2048) / 2048.f);
    for (int k = 0; k < K; ++k) centers[k] = make_float2((k + 0.5f) / K, 0.5f);

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemPrefetchAsync(pts, n * sizeof(float2), device, s));
    CUDA_CHECK(cudaMemPrefetchAsync(centers, K * sizeof(float2), device, s));
    CUDA_CHECK(cudaMemPrefetchAsync(labels, n * sizeof(int), device, s));
    assign<<<(n + 255) / 256, 256, 0, s>>>(pts, n, centers, labels);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemPrefetchAsync(labels, n * sizeof(int), cudaCpuDeviceId, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    int counts[K] = {0};
    for (int i = 0; i < n; ++i) counts[labels[i]]++;
    for (int k = 0; k < K; ++k) printf("cluster %d: %d points\n", k, counts[k]);

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(labels));
    CUDA_CHECK(cudaFree(centers));
    CUDA_CHECK(cudaFree(pts));
    return 0;
}
