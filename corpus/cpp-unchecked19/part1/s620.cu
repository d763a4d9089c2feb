// case: A small softmax library returns cudaGetLastError from its enqueue function and cudaStreamSynchronize's status from its wait function; the caller checks both.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                       \
    do {                                                                       \
        cudaError_t st_ = (call);                                              \
        if (st_ != cudaSuccess) {                                              \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(st_));       \
            exit(3);                                                           \
        }                                                                      \
    } while (0)

__global__ void softmax_rows(const float* logits, float* probs, int cols, int rows) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* in = logits + size_t(r) * cols;
    float* out = probs + size_t(r) * cols;
    float m = in[0];
    for (int c = 1; c < cols; ++c) m = fmaxf(m, in[c]);
    float z = 0.0f;
    for (int c = 0; c < cols; ++c) z += expf(in[c] - m);
    for (int c = 0; c < cols; ++c) out[c] = expf(in[c] - m) / z;
}

cudaError_t softmax_enqueue(const float* d_logits, float* d_probs, int cols, int rows, cudaStream_t s) {
    softmax_rows<<<(rows + 127) / 128, 128, 0, s>>>(d_logits, d_probs, cols, rows);
    return cudaGetLastError();
}

cudaError_t softmax_wait(cudaStream_t s) { return cudaStreamSynchronize(s); }

int main() {
    const int rows = 8192, cols = 64;
    const size_t bytes = size_t(rows) * cols * sizeof(float);
    std::vector<float> logits(size_t(rows) * cols), probs(size_t(rows) * cols);
    for (size_t i = 0; i < logits.size(); ++i) logits[i] = float(int(i % 11) - 5);

    float *d_logits = nullptr, *d_probs = nullptr;
    const cudaStream_t s = 0;  // the legacy default stream: ordered with the blocking copies
    CUDA_CHECK(cudaMalloc(&d_logits, bytes));
    CUDA_CHECK(cudaMalloc(&d_probs, bytes));
    CUDA_CHECK(cudaMemcpy(d_logits, logits.data(), bytes, cudaMemcpyHostToDevice));

    CUDA_CHECK(softmax_enqueue(d_logits, d_probs, cols, rows, s));
    CUDA_CHECK(softmax_wait(s));
    CUDA_CHECK(cudaMemcpy(probs.data(), d_probs, bytes, cudaMemcpyDeviceToHost));

    double row_sum = 0.0;
    for (int c = 0; c < cols; ++c) row_sum += probs[c];
    printf("row 0 sums to %.6f\n", row_sum);

    CUDA_CHECK(cudaFree(d_probs));
    CUDA_CHECK(cudaFree(d_logits));
    return 0;
}
