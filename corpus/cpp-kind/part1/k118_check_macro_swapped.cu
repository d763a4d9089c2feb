// case: a softmax layer wraps every call in CUDA_CHECK; the logits upload inside the macro is written (host, device) with cudaMemcpyHostToDevice, so the std::vector is named as device destination and the cudaMalloc buffer as host source.
// expect: memcpy_kind_mismatch=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(expr)                                                        \
    do {                                                                        \
        cudaError_t err__ = (expr);                                             \
        if (err__ != cudaSuccess) {                                             \
            fprintf(stderr, "CUDA error %s at %s:%d\n",                        \
                    cudaGetErrorString(err__), __FILE__, __LINE__);             \
            std::exit(EXIT_FAILURE);                                            \
        }                                                                       \
    } while (0)

__global__ void softmaxRows(const float* in, float* out, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float mx = -1e30f, sum = 0.f;
    for (int c = 0; c < cols; ++c) mx = fmaxf(mx, in[r * cols + c]);
    for (int c = 0; c < cols; ++c) sum += expf(in[r * cols + c] - mx);
    for (int c = 0; c < cols; ++c) out[r * cols + c] = expf(in[r * cols + c] - mx) / sum;
}

int main() {
    const int rows = 512, cols = 1000;
    const size_t bytes = (size_t)rows * cols * sizeof(float);
    std::vector<float> logits(rows * cols), probs(rows * cols);
    for (size_t i = 0; i < logits.size(); ++i) logits[i] = (float)(i % 13) * 0.1f;

    float *d_logits, *d_probs;
    CUDA_CHECK(cudaMalloc(&d_logits, bytes));
    CUDA_CHECK(cudaMalloc(&d_probs, bytes));

    CUDA_CHECK(cudaMemcpy(logits.data(), d_logits, bytes, cudaMemcpyHostToDevice)); // EXPECT: memcpy_kind_mismatch
    softmaxRows<<<(rows + 127) / 128, 128>>>(d_logits, d_probs, rows, cols);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(probs.data(), d_probs, bytes, cudaMemcpyDeviceToHost));

    double rowSum = 0;
    for (int c = 0; c < cols; ++c) rowSum += probs[c];
    printf("row 0 sums to %f\n", rowSum);

    CUDA_CHECK(cudaFree(d_logits));
    CUDA_CHECK(cudaFree(d_probs));
    return 0;
}
