// case: MSE regression step that reduces per-sample errors into a one-float device accumulator and copies exactly sizeof(float) into a host scalar
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e = (call);                                             \
        if (e != cudaSuccess) {                                             \
            std::fprintf(stderr, "CUDA %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); \
            std::exit(EXIT_FAILURE);                                        \
        }                                                                   \
    } while (0)

constexpr int BATCH = 1024;
constexpr int FEATURES = 32;

__global__ void mse_loss(const float *x, const float *w, const float *target, float *loss_sum)
{
    __shared__ float partial[256];
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    float err = 0.0f;
    if (b < BATCH) {
        float pred = 0.0f;
        for (int f = 0; f < FEATURES; ++f) pred += x[b * FEATURES + f] * w[f];
        err = (pred - target[b]) * (pred - target[b]);
    }
    partial[threadIdx.x] = err;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(loss_sum, partial[0]);
}

int main()
{
    std::vector<float> h_x(BATCH * FEATURES), h_w(FEATURES, 0.1f), h_t(BATCH);
    for (int i = 0; i < BATCH * FEATURES; ++i) h_x[i] = float(i % 13) * 0.05f;
    for (int b = 0; b < BATCH; ++b) h_t[b] = float(b % 5);

    float *d_x, *d_w, *d_t, *d_loss_sum;
    CUDA_CHECK(cudaMalloc(&d_x, BATCH * FEATURES * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_w, FEATURES * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_t, BATCH * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_loss_sum, sizeof(float)));

    CUDA_CHECK(cudaMemcpy(d_x, h_x.data(), BATCH * FEATURES * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_w, h_w.data(), FEATURES * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_t, h_t.data(), BATCH * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_loss_sum, 0, sizeof(float)));

    mse_loss<<<BATCH / 256, 256>>>(d_x, d_w, d_t, d_loss_sum);
    CUDA_CHECK(cudaGetLastError());

    float loss = 0.0f;
    CUDA_CHECK(cudaMemcpy(&loss, d_loss_sum, sizeof(loss), cudaMemcpyDeviceToHost));
    std::printf("mean squared error %.5f\n", loss / BATCH);

    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_w));
    CUDA_CHECK(cudaFree(d_t));
    CUDA_CHECK(cudaFree(d_loss_sum));
    return 0;
}
