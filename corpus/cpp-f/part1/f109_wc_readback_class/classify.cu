// case: a speech-command classifier reads its softmax output back into a write-combined HostStaging<float> (header template) and, after synchronizing correctly, scans it on the host for the arg-max: a host read of write-combined memory.
// expect: write_combined_host_read=1
#include <string>
#include "staging.h"

constexpr int kUtterances = 4096;
constexpr int kLabels = 35;

__global__ void softmax_rows(const float* logits, float* probs, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* in = logits + (size_t)r * cols;
    float m = in[0];
    for (int c = 1; c < cols; ++c) m = fmaxf(m, in[c]);
    float z = 0.f;
    for (int c = 0; c < cols; ++c) z += __expf(in[c] - m);
    for (int c = 0; c < cols; ++c) probs[(size_t)r * cols + c] = __expf(in[c] - m) / z;
}

int main() {
    HostStaging<float> probs(kUtterances * kLabels);
    float *d_logits = nullptr, *d_probs = nullptr;
    cuda_check(cudaMalloc(&d_logits, probs.bytes()), "malloc logits");
    cuda_check(cudaMalloc(&d_probs, probs.bytes()), "malloc probs");

    cudaStream_t s;
    cuda_check(cudaStreamCreate(&s), "stream");
    cuda_check(cudaMemsetAsync(d_logits, 0, probs.bytes(), s), "memset");
    softmax_rows<<<(kUtterances + 127) / 128, 128, 0, s>>>(d_logits, d_probs, kUtterances, kLabels);
    cuda_check(cudaMemcpyAsync(probs.data(), d_probs, probs.bytes(), cudaMemcpyDeviceToHost, s), "dtoh");
    cuda_check(cudaStreamSynchronize(s), "sync");

    int histogram[kLabels] = {0};
    for (int u = 0; u < kUtterances; ++u) {
        const float* row = probs.data() + (size_t)u * kLabels;
        int best = 0;
        for (int c = 1; c < kLabels; ++c)
            if (row[c] > row[best]) best = c;
        ++histogram[best];
    }
    printf("label 0 chosen %d times\n", histogram[0]);

    cudaFree(d_probs);
    cudaFree(d_logits);
    cudaStreamDestroy(s);
    return 0;
}
