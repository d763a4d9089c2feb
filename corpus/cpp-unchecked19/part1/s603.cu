// case: A 1D heat-equation stencil drops the status of one initial-condition upload and launches its time steps in a loop with only a checked cudaDeviceSynchronize after it.
// expect: unchecked_cuda_result=2
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                       \
    do {                                                                       \
        cudaError_t err = (call);                                              \
        if (err != cudaSuccess) {                                              \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                  \
                    cudaGetErrorString(err));                                  \
            abort();                                                           \
        }                                                                      \
    } while (0)

__global__ void heat_step(const float* u, float* u_next, int n, float alpha) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= 0 || i >= n - 1) return;
    u_next[i] = u[i] + alpha * (u[i - 1] - 2.0f * u[i] + u[i + 1]);
}

int main() {
    const int n = 1 << 20;
    const int steps = 500;
    const float alpha = 0.25f;
    const size_t bytes = n * sizeof(float);

    std::vector<float> u(n, 0.0f);
    for (int i = n / 4; i < n / 2; ++i) u[i] = 100.0f;
    u[0] = 0.0f;
    u[n - 1] = 0.0f;

    float *d_cur = nullptr, *d_next = nullptr;
    CUDA_CHECK(cudaMalloc(&d_cur, bytes));
    CUDA_CHECK(cudaMalloc(&d_next, bytes));
    cudaMemcpy(d_cur, u.data(), bytes, cudaMemcpyHostToDevice);  // EXPECT: unchecked_cuda_result
    // the boundary cells are never written by the kernel: both buffers start from u
    CUDA_CHECK(cudaMemcpy(d_next, u.data(), bytes, cudaMemcpyHostToDevice));

    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    for (int s = 0; s < steps; ++s) {
        heat_step<<<blocks, threads>>>(d_cur, d_next, n, alpha);  // EXPECT: unchecked_cuda_result
        float* tmp = d_cur;
        d_cur = d_next;
        d_next = tmp;
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(u.data(), d_cur, bytes, cudaMemcpyDeviceToHost));

    double heat = 0.0;
    for (float v : u) heat += v;
    printf("total heat after %d steps: %.3f\n", steps, heat);

    CUDA_CHECK(cudaFree(d_cur));
    CUDA_CHECK(cudaFree(d_next));
    return 0;
}
