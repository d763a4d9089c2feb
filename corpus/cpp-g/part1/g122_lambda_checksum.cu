// case: A time-stepping loop copies the state into pinned memory every 10 steps with cudaMemcpyAsync and immediately calls a checksum lambda that reads it, before the stream is synchronized (the final checksum after cudaStreamSynchronize is fine).
// expect: missing_sync=1
#include <cstdio>
#include <cmath>
#include <cuda_runtime.h>

#define CUDA_CHECK(e) do { cudaError_t err_ = (e); if (err_ != cudaSuccess) { \
    std::fprintf(stderr, "%s @ %d\n", cudaGetErrorString(err_), __LINE__); return 1; } } while (0)

__global__ void advance(float* u, const float* u_prev, int n, float c) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1)
        u[i] = u_prev[i] + c * (u_prev[i - 1] - 2.0f * u_prev[i] + u_prev[i + 1]);
}

int main() {
    const int n = 1 << 22, steps = 100;
    const size_t bytes = n * sizeof(float);
    float *d_a, *d_b, *h_snap;
    cudaStream_t s;

    CUDA_CHECK(cudaStreamCreate(&s));
    CUDA_CHECK(cudaMalloc(&d_a, bytes));
    CUDA_CHECK(cudaMalloc(&d_b, bytes));
    CUDA_CHECK(cudaMallocHost(&h_snap, bytes));
    CUDA_CHECK(cudaMemsetAsync(d_a, 0, bytes, s));
    CUDA_CHECK(cudaMemsetAsync(d_b, 0, bytes, s));

    auto checksum = [&](int step) {
        double sum = 0.0;
        for (int i = 0; i < n; ++i) sum += std::fabs(h_snap[i]);
        std::printf("step %3d  |u|_1 = %.6e\n", step, sum);
    };

    const dim3 block(256), grid((n + 255) / 256);
    for (int step = 0; step < steps; ++step) {
        float* cur = (step & 1) ? d_b : d_a;
        float* prev = (step & 1) ? d_a : d_b;
        advance<<<grid, block, 0, s>>>(cur, prev, n, 0.25f);
        if (step % 10 == 0) {
            CUDA_CHECK(cudaMemcpyAsync(h_snap, cur, bytes, cudaMemcpyDeviceToHost, s));
            checksum(step);
        }
    }

    CUDA_CHECK(cudaMemcpyAsync(h_snap, (steps & 1) ? d_a : d_b, bytes, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    checksum(steps);

    CUDA_CHECK(cudaFreeHost(h_snap));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
