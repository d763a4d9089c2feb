// case: a classifier benchmark reads predictions into cudaMallocHost memory; the success path frees it with cudaFreeHost, but the validation-failure cleanup block releases it with cudaFree together with the device buffers, which the runtime refuses for pinned host memory.
// expect: mismatched_free=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t e = (call);                                                  \
        if (e != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            return 1;                                                            \
        }                                                                        \
    } while (0)

constexpr int kSamples = 100000;
constexpr int kFeatures = 64;
constexpr int kClasses = 10;

__global__ void linear_argmax(const float* x, const float* w, int* pred, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int best = 0;
    float best_v = -1e30f;
    for (int c = 0; c < kClasses; ++c) {
        float v = 0.f;
        for (int f = 0; f < kFeatures; ++f) v += x[size_t(i) * kFeatures + f] * w[c * kFeatures + f];
        if (v > best_v) { best_v = v; best = c; }
    }
    pred[i] = best;
}

static int count_mismatches(const int* pred, const std::vector<int>& labels, int n) {
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += pred[i] != labels[i];
    return bad;
}

int main() {
    std::vector<float> x(size_t(kSamples) * kFeatures), w(kClasses * kFeatures);
    std::vector<int> labels(kSamples);
    for (int i = 0; i < kSamples; ++i) {
        labels[i] = i % kClasses;
        for (int f = 0; f < kFeatures; ++f) x[size_t(i) * kFeatures + f] = (f == labels[i]) ? 1.f : 0.01f;
    }
    for (int c = 0; c < kClasses; ++c)
        for (int f = 0; f < kFeatures; ++f) w[c * kFeatures + f] = (f == c) ? 1.f : 0.f;

    float *d_x, *d_w;
    int* d_pred;
    int* h_pred;
    CUDA_CHECK(cudaMalloc(&d_x, x.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_w, w.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_pred, kSamples * sizeof(int)));
    CUDA_CHECK(cudaMallocHost(&h_pred, kSamples * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_w, w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice));

    linear_argmax<<<(kSamples + 255) / 256, 256>>>(d_x, d_w, d_pred, kSamples);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_pred, d_pred, kSamples * sizeof(int), cudaMemcpyDeviceToHost));

    const int bad = count_mismatches(h_pred, labels, kSamples);
    if (bad > 0) {
        fprintf(stderr, "validation failed: %d of %d wrong\n", bad, kSamples);
        cudaFree(d_x);
        cudaFree(d_w);
        cudaFree(d_pred);
        cudaFree(h_pred); // EXPECT: mismatched_free
        return 1;
    }
    printf("all %d predictions correct\n", kSamples);

    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_w));
    CUDA_CHECK(cudaFree(d_pred));
    CUDA_CHECK(cudaFreeHost(h_pred));
    return 0;
}
