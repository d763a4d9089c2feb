// Data-parallel linear regression: each rank computes the gradient of its shard on the
// compute stream, gradients are summed with NCCL on a dedicated communication stream, and
// every rank applies the same SGD step. Rank 0 logs the loss each step.
#include <cmath>
#include "dist.h"

constexpr int kFeatures = 4096;
constexpr int kShardRows = 8192;
constexpr int kSteps = 100;

// One thread per row: e = x_row . w - y; loss += e^2. x is row-major [rows][features].
__global__ void linreg_residual(const float* __restrict__ x, const float* __restrict__ y,
                                const float* __restrict__ w, float* __restrict__ e,
                                float* __restrict__ loss, int rows, int features) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + static_cast<size_t>(r) * features;
    float pred = 0.f;
    for (int f = 0; f < features; ++f) pred += xr[f] * w[f];
    const float err = pred - y[r];
    e[r] = err;
    atomicAdd(loss, err * err);
}

// One thread per feature: grad[f] = sum_r e[r] * x[r][f].
__global__ void linreg_grad(const float* __restrict__ x, const float* __restrict__ e,
                            float* __restrict__ grad, int rows, int features) {
    const int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= features) return;
    float g = 0.f;
    for (int r = 0; r < rows; ++r) g += e[r] * x[static_cast<size_t>(r) * features + f];
    grad[f] = g;
}

__global__ void sgd_step(float* __restrict__ w, const float* __restrict__ grad_sum, float lr, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] -= lr * grad_sum[i];
}

int main(int argc, char** argv) {
    Dist dist = dist_init(&argc, &argv);
    const size_t x_elems = static_cast<size_t>(kShardRows) * kFeatures;

    cudaStream_t compute, comm;
    CUDA_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&comm, cudaStreamNonBlocking));
    cudaEvent_t reduced;
    CUDA_CHECK(cudaEventCreateWithFlags(&reduced, cudaEventDisableTiming));

    float *h_x, *h_y, *h_loss;
    CUDA_CHECK(cudaMallocHost(&h_x, x_elems * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_y, kShardRows * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_loss, sizeof(float)));
    for (int r = 0; r < kShardRows; ++r) {
        float target = 0.f;
        for (int f = 0; f < kFeatures; ++f) {
            const float v = std::sin(0.001f * (r + 1) * (f + 1) + dist.rank);
            h_x[static_cast<size_t>(r) * kFeatures + f] = v;
            target += v * (f % 3 == 0 ? 0.5f : -0.25f);
        }
        h_y[r] = target;
    }

    float *d_x, *d_y, *d_w, *d_e, *d_grad, *d_grad_sum, *d_loss;
    CUDA_CHECK(cudaMalloc(&d_x, x_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, kShardRows * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_w, kFeatures * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_e, kShardRows * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_grad, kFeatures * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_grad_sum, kFeatures * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_loss, sizeof(float)));

    CUDA_CHECK(cudaMemcpyAsync(d_x, h_x, x_elems * sizeof(float), cudaMemcpyHostToDevice, compute));
    CUDA_CHECK(cudaMemcpyAsync(d_y, h_y, kShardRows * sizeof(float), cudaMemcpyHostToDevice, compute));
    CUDA_CHECK(cudaMemsetAsync(d_w, 0, kFeatures * sizeof(float), compute));

    const float lr = 1e-3f / (static_cast<float>(kShardRows) * dist.size);
    const int threads = 256;
    for (int step = 0; step < kSteps; ++step) {
        CUDA_CHECK(cudaMemsetAsync(d_loss, 0, sizeof(float), compute));
        linreg_residual<<<(kShardRows + threads - 1) / threads, threads, 0, compute>>>(
            d_x, d_y, d_w, d_e, d_loss, kShardRows, kFeatures);
        CUDA_CHECK(cudaGetLastError());
        linreg_grad<<<(kFeatures + threads - 1) / threads, threads, 0, compute>>>(
            d_x, d_e, d_grad, kShardRows, kFeatures);
        CUDA_CHECK(cudaGetLastError());

        NCCL_CHECK(ncclAllReduce(d_grad, d_grad_sum, kFeatures, ncclFloat, ncclSum, dist.comm, comm));  // EXPECT: missing_sync
        CUDA_CHECK(cudaEventRecord(reduced, comm));
        CUDA_CHECK(cudaStreamWaitEvent(compute, reduced, 0));

        sgd_step<<<(kFeatures + threads - 1) / threads, threads, 0, compute>>>(d_w, d_grad_sum, lr, kFeatures);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_loss, d_loss, sizeof(float), cudaMemcpyDeviceToHost, compute));
        CUDA_CHECK(cudaStreamSynchronize(compute));
        if (dist.rank == 0 && step % 10 == 0)
            std::printf("step %3d  local loss %.6e\n", step, *h_loss / kShardRows);
    }

    CUDA_CHECK(cudaStreamSynchronize(comm));
    CUDA_CHECK(cudaFree(d_loss));
    CUDA_CHECK(cudaFree(d_grad_sum));
    CUDA_CHECK(cudaFree(d_grad));
    CUDA_CHECK(cudaFree(d_e));
    CUDA_CHECK(cudaFree(d_w));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFreeHost(h_loss));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaFreeHost(h_x));
    CUDA_CHECK(cudaEventDestroy(reduced));
    CUDA_CHECK(cudaStreamDestroy(comm));
    CUDA_CHECK(cudaStreamDestroy(compute));
    dist_finalize(dist);
    return 0;
}
