// case: segmentation post-processing whose ignore-mask buffer is allocated only when --mask is given, and whose upload and masked launch sit under the same use_mask condition
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e = (call);                                             \
        if (e != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            std::exit(1);                                                   \
        }                                                                   \
    } while (0)

constexpr int kPixels = 1024 * 1024;
constexpr int kClasses = 21;

__global__ void argmax_masked(const float *logits, const unsigned char *mask, int *labels, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (mask[i] == 0) { labels[i] = -1; return; }
    int best = 0;
    for (int c = 1; c < kClasses; ++c)
        if (logits[c * n + i] > logits[best * n + i]) best = c;
    labels[i] = best;
}

__global__ void argmax_all(const float *logits, int *labels, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int best = 0;
    for (int c = 1; c < kClasses; ++c)
        if (logits[c * n + i] > logits[best * n + i]) best = c;
    labels[i] = best;
}

int main(int argc, char **argv)
{
    bool use_mask = argc > 1 && std::strcmp(argv[1], "--mask") == 0;

    std::vector<float> h_logits(size_t(kClasses) * kPixels);
    for (size_t i = 0; i < h_logits.size(); ++i) h_logits[i] = float((i * 2654435761u) % 1000);
    std::vector<int> h_labels(kPixels);

    float *d_logits;
    int *d_labels;
    unsigned char *d_mask = nullptr;
    CUDA_CHECK(cudaMalloc(&d_logits, h_logits.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_labels, kPixels * sizeof(int)));
    if (use_mask) CUDA_CHECK(cudaMalloc(&d_mask, kPixels));

    CUDA_CHECK(cudaMemcpy(d_logits, h_logits.data(), h_logits.size() * sizeof(float), cudaMemcpyHostToDevice));
    if (use_mask) {
        std::vector<unsigned char> h_mask(kPixels);
        for (int i = 0; i < kPixels; ++i) h_mask[i] = (i % 1024) > 16;
        CUDA_CHECK(cudaMemcpy(d_mask, h_mask.data(), kPixels, cudaMemcpyHostToDevice));
        argmax_masked<<<kPixels / 256, 256>>>(d_logits, d_mask, d_labels, kPixels);
    } else {
        argmax_all<<<kPixels / 256, 256>>>(d_logits, d_labels, kPixels);
    }
    CUDA_CHECK(cudaMemcpy(h_labels.data(), d_labels, kPixels * sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("label[100] = %d\n", h_labels[100]);

    CUDA_CHECK(cudaFree(d_logits));
    CUDA_CHECK(cudaFree(d_labels));
    if (use_mask) CUDA_CHECK(cudaFree(d_mask));
    return 0;
}
