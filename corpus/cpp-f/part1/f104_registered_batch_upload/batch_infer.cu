// case: an inference batcher page-locks its std::vector input and logits with a header RAII cudaHostRegister wrapper, streams each batch with cudaMemcpyAsync, and synchronizes before refilling the input, reading logits and unregistering.
// expect: none
#include "host_pin.h"
#include <vector>
#include <algorithm>

constexpr int kBatch = 256;
constexpr int kFeatures = 1024;
constexpr int kClasses = 1000;

__global__ void dense_logits(const float* x, const float* w, float* logits) {
    int b = blockIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= kClasses) return;
    float acc = 0.f;
    for (int f = 0; f < kFeatures; ++f) acc += x[b * kFeatures + f] * w[f * kClasses + c];
    logits[b * kClasses + c] = acc;
}

static void load_batch(std::vector<float>& dst, int batch) {
    for (size_t i = 0; i < dst.size(); ++i) dst[i] = (float)((i + batch * 7) % 97) / 97.f;
}

int main() {
    std::vector<float> input((size_t)kBatch * kFeatures);
    std::vector<float> logits((size_t)kBatch * kClasses);
    ScopedHostRegister pin_in(input.data(), input.size() * sizeof(float));
    ScopedHostRegister pin_out(logits.data(), logits.size() * sizeof(float));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *d_x, *d_w, *d_logits;
    CUDA_CHECK(cudaMalloc(&d_x, input.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_w, (size_t)kFeatures * kClasses * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_logits, logits.size() * sizeof(float)));
    CUDA_CHECK(cudaMemsetAsync(d_w, 0, (size_t)kFeatures * kClasses * sizeof(float), s));

    std::vector<int> predictions;
    for (int batch = 0; batch < 16; ++batch) {
        load_batch(input, batch);
        CUDA_CHECK(cudaMemcpyAsync(d_x, input.data(), input.size() * sizeof(float),
                                   cudaMemcpyHostToDevice, s));
        dim3 grid((kClasses + 127) / 128, kBatch);
        dense_logits<<<grid, 128, 0, s>>>(d_x, d_w, d_logits);
        CUDA_CHECK(cudaMemcpyAsync(logits.data(), d_logits, logits.size() * sizeof(float),
                                   cudaMemcpyDeviceToHost, s));
        CUDA_CHECK(cudaStreamSynchronize(s));

        for (int b = 0; b < kBatch; ++b) {
            const float* row = logits.data() + (size_t)b * kClasses;
            predictions.push_back((int)(std::max_element(row, row + kClasses) - row));
        }
    }
    printf("classified %zu samples, first=%d\n", predictions.size(), predictions.front());

    CUDA_CHECK(cudaFree(d_logits));
    CUDA_CHECK(cudaFree(d_w));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
