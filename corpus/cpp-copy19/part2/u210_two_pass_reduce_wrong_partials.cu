// case: a two-pass sum reduction whose first pass was handed the final-result buffer instead of d_partials, so the second pass reads d_partials before anything wrote it.
// expect: uninitialized_device_read=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <numeric>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::printf("CUDA %s @ %d\n", cudaGetErrorString(e), __LINE__); std::exit(1); } } while (0)

constexpr int kN = 1 << 22;
constexpr int kThreads = 512;
constexpr int kBlocks = 256;

template <int BLOCK>
__global__ void block_sum(const float* in, float* out, int n)
{
    __shared__ float smem[BLOCK];
    float v = 0.0f;
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK)
        v += in[i];
    smem[threadIdx.x] = v;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) smem[threadIdx.x] += smem[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = smem[0];
}

float device_sum(const std::vector<float>& host)
{
    float *d_in, *d_partials, *d_total;
    CUDA_CHECK(cudaMalloc(&d_in, kN * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_partials, kBlocks * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_total, kBlocks * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_in, host.data(), kN * sizeof(float), cudaMemcpyHostToDevice));

    block_sum<kThreads><<<kBlocks, kThreads>>>(d_in, d_total, kN);
    block_sum<kThreads><<<1, kThreads>>>(d_partials, d_total, kBlocks); // EXPECT: uninitialized_device_read
    CUDA_CHECK(cudaGetLastError());

    float total = 0.0f;
    CUDA_CHECK(cudaMemcpy(&total, d_total, sizeof(float), cudaMemcpyDeviceToHost));

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_partials));
    CUDA_CHECK(cudaFree(d_total));
    return total;
}

int main()
{
    std::vector<float> data(kN, 1.0f);
    float gpu = device_sum(data);
    float cpu = std::accumulate(data.begin(), data.end(), 0.0f);
    std::printf("gpu %.1f cpu %.1f\n", gpu, cpu);
    return 0;
}
