// case: inference pipeline on a stream whose pinned host buffer holds one row of BATCH probabilities while the async readback copies the full BATCH x CLASSES matrix into it
// expect: copy_out_of_bounds=1
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t err_ = (call);                                          \
        if (err_ != cudaSuccess) {                                          \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            std::exit(EXIT_FAILURE);                                        \
        }                                                                   \
    } while (0)

constexpr int BATCH = 128;
constexpr int CLASSES = 1000;
constexpr size_t kLogitBytes = size_t(BATCH) * CLASSES * sizeof(float);

__global__ void softmax_rows(const float *logits, float *probs, int classes)
{
    int b = blockIdx.x;
    const float *in = logits + size_t(b) * classes;
    float *out = probs + size_t(b) * classes;
    float mx = -INFINITY;
    for (int c = 0; c < classes; ++c) mx = fmaxf(mx, in[c]);
    float sum = 0.f;
    for (int c = 0; c < classes; ++c) sum += __expf(in[c] - mx);
    for (int c = threadIdx.x; c < classes; c += blockDim.x) out[c] = __expf(in[c] - mx) / sum;
}

int main()
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    float *h_logits, *h_probs;
    CUDA_CHECK(cudaMallocHost(&h_logits, kLogitBytes));
    CUDA_CHECK(cudaMallocHost(&h_probs, BATCH * sizeof(float)));
    for (size_t i = 0; i < size_t(BATCH) * CLASSES; ++i) h_logits[i] = float(i % 97) * 0.01f;

    float *d_logits, *d_probs;
    CUDA_CHECK(cudaMalloc(&d_logits, kLogitBytes));
    CUDA_CHECK(cudaMalloc(&d_probs, kLogitBytes));

    CUDA_CHECK(cudaMemcpyAsync(d_logits, h_logits, kLogitBytes, cudaMemcpyHostToDevice, stream));
    softmax_rows<<<BATCH, 128, 0, stream>>>(d_logits, d_probs, CLASSES);
    CUDA_CHECK(cudaMemcpyAsync(h_probs, d_probs, kLogitBytes, cudaMemcpyDeviceToHost, stream)); // EXPECT: copy_out_of_bounds
    CUDA_CHECK(cudaStreamSynchronize(stream));

    int argmax = 0;
    for (int c = 1; c < CLASSES; ++c)
        if (h_probs[c] > h_probs[argmax]) argmax = c;
    std::printf("sample 0 -> class %d\n", argmax);

    CUDA_CHECK(cudaFree(d_logits));
    CUDA_CHECK(cudaFree(d_probs));
    CUDA_CHECK(cudaFreeHost(h_logits));
    CUDA_CHECK(cudaFreeHost(h_probs));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
