// case: a gather by permutation where thrust::sequence fills a raw cudaMalloc'd index buffer through a device_ptr (a library call writes it) before the gather kernel reads the indices.
// expect: none
#include <cuda_runtime.h>
#include <thrust/device_ptr.h>
#include <thrust/sequence.h>
#include <thrust/execution_policy.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s\n", cudaGetErrorString(e)); std::exit(1); } } while (0)

constexpr int kN = 1 << 20;
constexpr int kStride = 3;

__global__ void strided_gather(const float* src, const int* idx, float* dst, int n, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[(idx[i] * stride) % n];
}

int main()
{
    std::vector<float> h_src(kN), h_dst(kN);
    for (int i = 0; i < kN; ++i) h_src[i] = float(i);

    float *d_src, *d_dst;
    int* d_idx;
    CUDA_CHECK(cudaMalloc(&d_src, kN * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_dst, kN * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_idx, kN * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_src, h_src.data(), kN * sizeof(float), cudaMemcpyHostToDevice));

    thrust::device_ptr<int> idx_begin = thrust::device_pointer_cast(d_idx);
    thrust::sequence(thrust::device, idx_begin, idx_begin + kN);

    strided_gather<<<(kN + 255) / 256, 256>>>(d_src, d_idx, d_dst, kN, kStride);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_dst.data(), d_dst, kN * sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("dst[1] = %f\n", h_dst[1]);

    CUDA_CHECK(cudaFree(d_src));
    CUDA_CHECK(cudaFree(d_dst));
    CUDA_CHECK(cudaFree(d_idx));
    return 0;
}
