// case: a scoring kernel writes per-candidate scores and cub::DeviceReduce::ArgMax (a library call) reads them; only the arg-max pair is copied back, and the scores are freed after CUB consumed them.
// expect: none
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); std::exit(1); } } while (0)

constexpr int kCandidates = 500000;
constexpr int kFeatures = 8;

__global__ void score_candidates(const float* feats, const float* weights, float* scores, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.f;
    for (int k = 0; k < kFeatures; ++k) s += feats[i * kFeatures + k] * weights[k];
    scores[i] = s;
}

int main()
{
    std::vector<float> feats(kCandidates * kFeatures), weights(kFeatures);
    for (int i = 0; i < kCandidates * kFeatures; ++i) feats[i] = float((i * 31) % 97) / 97.f;
    for (int k = 0; k < kFeatures; ++k) weights[k] = 1.0f / (k + 1);

    float *d_feats, *d_weights, *d_scores;
    cub::KeyValuePair<int, float>* d_best;
    CUDA_CHECK(cudaMalloc(&d_feats, feats.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_weights, kFeatures * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_scores, kCandidates * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_best, sizeof(cub::KeyValuePair<int, float>)));
    CUDA_CHECK(cudaMemcpy(d_feats, feats.data(), feats.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_weights, weights.data(), kFeatures * sizeof(float), cudaMemcpyHostToDevice));

    score_candidates<<<(kCandidates + 255) / 256, 256>>>(d_feats, d_weights, d_scores, kCandidates);
    CUDA_CHECK(cudaGetLastError());

    void* d_temp = nullptr;
    size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::ArgMax(d_temp, temp_bytes, d_scores, d_best, kCandidates));
    CUDA_CHECK(cudaMalloc(&d_temp, temp_bytes));
    CUDA_CHECK(cub::DeviceReduce::ArgMax(d_temp, temp_bytes, d_scores, d_best, kCandidates));

    cub::KeyValuePair<int, float> best;
    CUDA_CHECK(cudaMemcpy(&best, d_best, sizeof(best), cudaMemcpyDeviceToHost));
    std::printf("best candidate %d with score %f\n", best.key, best.value);

    CUDA_CHECK(cudaFree(d_temp));
    CUDA_CHECK(cudaFree(d_feats));
    CUDA_CHECK(cudaFree(d_weights));
    CUDA_CHECK(cudaFree(d_scores));
    CUDA_CHECK(cudaFree(d_best));
    return 0;
}
