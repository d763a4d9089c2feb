// case: a leapfrog wave solver meant to seed the previous time level from the current one, but the device-to-device copy has its arguments swapped and copies from the never-written d_prev.
// expect: uninitialized_device_read=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cmath>

#define CUDA_CHECK(e) do { cudaError_t code = (e); if (code != cudaSuccess) { \
    std::fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code), __FILE__, __LINE__); std::exit(code); } } while (0)

constexpr int   NX = 1 << 16;
constexpr float C2 = 0.25f;

__global__ void leapfrog(const float* prev, const float* curr, float* next, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= 0 || i >= n - 1) {
        if (i < n) next[i] = 0.0f;
        return;
    }
    next[i] = 2.0f * curr[i] - prev[i] + C2 * (curr[i - 1] - 2.0f * curr[i] + curr[i + 1]);
}

int main()
{
    std::vector<float> u0(NX);
    for (int i = 0; i < NX; ++i) {
        float x = (i - NX / 2) / 200.0f;
        u0[i] = std::exp(-x * x);
    }

    const size_t bytes = NX * sizeof(float);
    float *d_prev, *d_curr, *d_next;
    CUDA_CHECK(cudaMalloc(&d_prev, bytes));
    CUDA_CHECK(cudaMalloc(&d_curr, bytes));
    CUDA_CHECK(cudaMalloc(&d_next, bytes));

    CUDA_CHECK(cudaMemcpy(d_curr, u0.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_curr, d_prev, bytes, cudaMemcpyDeviceToDevice)); // EXPECT: uninitialized_device_read

    leapfrog<<<(NX + 255) / 256, 256>>>(d_prev, d_curr, d_next, NX);
    CUDA_CHECK(cudaGetLastError());

    std::vector<float> u1(NX);
    CUDA_CHECK(cudaMemcpy(u1.data(), d_next, bytes, cudaMemcpyDeviceToHost));
    std::printf("u1[center] = %f\n", u1[NX / 2]);

    CUDA_CHECK(cudaFree(d_prev));
    CUDA_CHECK(cudaFree(d_curr));
    CUDA_CHECK(cudaFree(d_next));
    return 0;
}
