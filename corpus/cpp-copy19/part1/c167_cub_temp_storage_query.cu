// case: CUB device reduction using the two-phase idiom: the first call gets d_temp_storage = nullptr only to query the size (a library call, not a use), then the storage is allocated for the real call
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e = (call);                                             \
        if (e != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            std::exit(EXIT_FAILURE);                                        \
        }                                                                   \
    } while (0)

constexpr int kN = 1 << 22;

__global__ void square(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i];
}

int main()
{
    std::vector<float> h(kN);
    for (int i = 0; i < kN; ++i) h[i] = float(i % 100) * 0.01f;

    float *d_in, *d_sq, *d_sum;
    CUDA_CHECK(cudaMalloc(&d_in, kN * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_sq, kN * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_sum, sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_in, h.data(), kN * sizeof(float), cudaMemcpyHostToDevice));

    square<<<(kN + 255) / 256, 256>>>(d_in, d_sq, kN);

    void *d_temp_storage = nullptr;
    size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(d_temp_storage, temp_bytes, d_sq, d_sum, kN));
    CUDA_CHECK(cudaMalloc(&d_temp_storage, temp_bytes));
    CUDA_CHECK(cub::DeviceReduce::Sum(d_temp_storage, temp_bytes, d_sq, d_sum, kN));

    float sum = 0.f;
    CUDA_CHECK(cudaMemcpy(&sum, d_sum, sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("sum of squares %f (temp storage %zu bytes)\n", sum, temp_bytes);

    CUDA_CHECK(cudaFree(d_temp_storage));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_sq));
    CUDA_CHECK(cudaFree(d_sum));
    return 0;
}
