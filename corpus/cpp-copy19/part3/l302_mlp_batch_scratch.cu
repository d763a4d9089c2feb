// case: a two-layer MLP inference loop allocates the hidden-activation buffer inside the batch loop and never frees it, so each batch loses the previous one
// expect: device_memory_leak=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <random>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                        \
    do {                                                                        \
        cudaError_t err_ = (call);                                              \
        if (err_ != cudaSuccess) {                                              \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                   \
                    cudaGetErrorString(err_));                                  \
            exit(EXIT_FAILURE);                                                 \
        }                                                                       \
    } while (0)

constexpr int BATCH = 256;
constexpr int IN = 784;
constexpr int HID = 512;
constexpr int OUT = 10;
constexpr int NUM_BATCHES = 40;

__global__ void dense(const float* x, const float* W, const float* b, float* y,
                      int rows, int in, int out, bool relu) {
    int r = blockIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows || c >= out) return;
    float acc = b[c];
    for (int k = 0; k < in; ++k) acc += x[r * in + k] * W[k * out + c];
    y[r * out + c] = relu ? fmaxf(acc, 0.f) : acc;
}

int main() {
    std::mt19937 rng(7);
    std::normal_distribution<float> nd(0.f, 0.05f);
    std::vector<float> W1(IN * HID), b1(HID), W2(HID * OUT), b2(OUT);
    for (auto& w : W1) w = nd(rng);
    for (auto& w : W2) w = nd(rng);
    for (auto& v : b1) v = 0.01f;
    for (auto& v : b2) v = 0.f;

    float *d_W1, *d_b1, *d_W2, *d_b2, *d_x, *d_logits;
    CUDA_CHECK(cudaMalloc(&d_W1, sizeof(float) * IN * HID));
    CUDA_CHECK(cudaMalloc(&d_b1, sizeof(float) * HID));
    CUDA_CHECK(cudaMalloc(&d_W2, sizeof(float) * HID * OUT));
    CUDA_CHECK(cudaMalloc(&d_b2, sizeof(float) * OUT));
    CUDA_CHECK(cudaMalloc(&d_x, sizeof(float) * BATCH * IN));
    CUDA_CHECK(cudaMalloc(&d_logits, sizeof(float) * BATCH * OUT));
    CUDA_CHECK(cudaMemcpy(d_W1, W1.data(), sizeof(float) * IN * HID, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b1, b1.data(), sizeof(float) * HID, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_W2, W2.data(), sizeof(float) * HID * OUT, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b2, b2.data(), sizeof(float) * OUT, cudaMemcpyHostToDevice));

    std::vector<float> x(BATCH * IN), logits(BATCH * OUT);
    std::uniform_real_distribution<float> ud(0.f, 1.f);
    long correct_class0 = 0;
    for (int batch = 0; batch < NUM_BATCHES; ++batch) {
        for (auto& v : x) v = ud(rng);
        CUDA_CHECK(cudaMemcpy(d_x, x.data(), sizeof(float) * BATCH * IN, cudaMemcpyHostToDevice));

        float* d_hidden = nullptr;
        CUDA_CHECK(cudaMalloc(&d_hidden, sizeof(float) * BATCH * HID)); // EXPECT: device_memory_leak
        dense<<<dim3((HID + 127) / 128, BATCH), 128>>>(d_x, d_W1, d_b1, d_hidden, BATCH, IN, HID, true);
        dense<<<dim3(1, BATCH), 32>>>(d_hidden, d_W2, d_b2, d_logits, BATCH, HID, OUT, false);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpy(logits.data(), d_logits, sizeof(float) * BATCH * OUT,
                              cudaMemcpyDeviceToHost));

        for (int r = 0; r < BATCH; ++r) {
            int best = 0;
            for (int c = 1; c < OUT; ++c)
                if (logits[r * OUT + c] > logits[r * OUT + best]) best = c;
            correct_class0 += (best == 0);
        }
    }
    printf("predicted class 0 for %ld of %d samples\n", correct_class0, BATCH * NUM_BATCHES);

    CUDA_CHECK(cudaFree(d_W1));
    CUDA_CHECK(cudaFree(d_b1));
    CUDA_CHECK(cudaFree(d_W2));
    CUDA_CHECK(cudaFree(d_b2));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_logits));
    return 0;
}
