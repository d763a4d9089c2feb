// case: a CUB DeviceReduce::Sum whose temporary storage is a fresh cudaMalloc buffer handed straight to CUB (the library writes it), the input uploaded and the sum copied back.
// expect: none
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); std::exit(1); } } while (0)

constexpr int kItems = 1 << 24;

int main()
{
    std::vector<int> h_in(kItems);
    for (int i = 0; i < kItems; ++i) h_in[i] = i & 7;

    int *d_in = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, kItems * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_out, sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), kItems * sizeof(int), cudaMemcpyHostToDevice));

    void* d_temp = nullptr;
    size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, kItems));
    CUDA_CHECK(cudaMalloc(&d_temp, temp_bytes));
    CUDA_CHECK(cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, kItems));

    int total = 0;
    CUDA_CHECK(cudaMemcpy(&total, d_out, sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("sum = %d (expected %d)\n", total, (kItems / 8) * 28);

    CUDA_CHECK(cudaFree(d_temp));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    return 0;
}
