// case: a masked reduction whose validity mask is cleared with cudaMemset and then partly set by a marking kernel before the read-only sum kernel uses it.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s\n", cudaGetErrorString(e)); std::exit(1); } } while (0)

constexpr int kN = 1 << 20;

__global__ void mark_valid(const float* v, unsigned char* mask, int n, float lo, float hi)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && v[i] >= lo && v[i] <= hi) mask[i] = 1;
}

__global__ void masked_sum(const float* v, const unsigned char* mask, float* sum, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && mask[i]) atomicAdd(sum, v[i]);
}

int main()
{
    std::vector<float> values(kN);
    for (int i = 0; i < kN; ++i) values[i] = float(i % 1000) - 500.0f;

    float* d_v;
    unsigned char* d_mask;
    float* d_sum;
    CUDA_CHECK(cudaMalloc(&d_v, kN * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_mask, kN));
    CUDA_CHECK(cudaMalloc(&d_sum, sizeof(float)));

    CUDA_CHECK(cudaMemcpy(d_v, values.data(), kN * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_mask, 0, kN));
    CUDA_CHECK(cudaMemset(d_sum, 0, sizeof(float)));

    const int tpb = 256, blocks = (kN + tpb - 1) / tpb;
    mark_valid<<<blocks, tpb>>>(d_v, d_mask, kN, -100.0f, 100.0f);
    masked_sum<<<blocks, tpb>>>(d_v, d_mask, d_sum, kN);
    CUDA_CHECK(cudaGetLastError());

    float sum = 0.0f;
    CUDA_CHECK(cudaMemcpy(&sum, d_sum, sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("sum of values in [-100, 100]: %f\n", sum);

    CUDA_CHECK(cudaFree(d_v));
    CUDA_CHECK(cudaFree(d_mask));
    CUDA_CHECK(cudaFree(d_sum));
    return 0;
}
