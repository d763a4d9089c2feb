// case: A k-means clusterer keeps its per-iteration parameters in a cudaMallocManaged struct (global attach) and updates them on the host while the assignment kernel, which does not use them, is still running.
// expect: managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cfloat>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

constexpr int kPoints = 1 << 20;
constexpr int kDims = 4;
constexpr int kClusters = 16;

struct KmeansParams {
    int iteration;
    float learning_rate;
    int clusters;
};

__global__ void assign(const float* pts, const float* centroids, int* labels, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float best = FLT_MAX; int arg = 0;
    for (int c = 0; c < kClusters; ++c) {
        float d = 0.f;
        for (int k = 0; k < kDims; ++k) { float t = pts[i * kDims + k] - centroids[c * kDims + k]; d += t * t; }
        if (d < best) { best = d; arg = c; }
    }
    labels[i] = arg;
}

__global__ void update(const float* pts, const int* labels, float* centroids, int n, const KmeansParams* p)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int c = labels[i];
    for (int k = 0; k < kDims; ++k)
        atomicAdd(&centroids[c * kDims + k], p->learning_rate * (pts[i * kDims + k] - centroids[c * kDims + k]) / n);
}

int main()
{
    std::vector<float> h_pts(kPoints * kDims);
    for (size_t i = 0; i < h_pts.size(); ++i) h_pts[i] = (float)((i * 2654435761u) % 1000) / 1000.f;

    float *d_pts, *d_centroids;
    int* d_labels;
    KmeansParams* params = nullptr;
    CUDA_CHECK(cudaMalloc(&d_pts, h_pts.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_centroids, kClusters * kDims * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_labels, kPoints * sizeof(int)));
    CUDA_CHECK(cudaMallocManaged(&params, sizeof(KmeansParams)));
    CUDA_CHECK(cudaMemcpy(d_pts, h_pts.data(), h_pts.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_centroids, h_pts.data(), kClusters * kDims * sizeof(float), cudaMemcpyHostToDevice));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    const int blocks = (kPoints + 255) / 256;

    for (int it = 0; it < 10; ++it) {
        assign<<<blocks, 256, 0, s>>>(d_pts, d_centroids, d_labels, kPoints);
        CUDA_CHECK(cudaGetLastError());
        // overlap the host bookkeeping with the assignment step
        params->iteration = it; // EXPECT: managed_concurrent_access
        params->learning_rate = 1.0f / (1.0f + it);
        params->clusters = kClusters;
        CUDA_CHECK(cudaStreamSynchronize(s));
        update<<<blocks, 256, 0, s>>>(d_pts, d_labels, d_centroids, kPoints, params);
        CUDA_CHECK(cudaStreamSynchronize(s));
    }

    std::vector<float> centroids(kClusters * kDims);
    CUDA_CHECK(cudaMemcpy(centroids.data(), d_centroids, centroids.size() * sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("c0 = (%f, %f, %f, %f)\n", centroids[0], centroids[1], centroids[2], centroids[3]);

    CUDA_CHECK(cudaFree(params));
    CUDA_CHECK(cudaFree(d_labels));
    CUDA_CHECK(cudaFree(d_centroids));
    CUDA_CHECK(cudaFree(d_pts));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
