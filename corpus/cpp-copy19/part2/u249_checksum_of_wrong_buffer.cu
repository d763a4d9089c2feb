// case: a gamma-correction kernel writes d_out, but the verification checksum kernel is given d_in, so the corrected image is freed without anything reading it.
// expect: unread_kernel_output=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); std::exit(1); } } while (0)

constexpr int kPixels = 3840 * 2160;

__global__ void gamma_correct(const uint8_t* in, uint8_t* out, float inv_gamma, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = static_cast<uint8_t>(255.0f * __powf(in[i] / 255.0f, inv_gamma) + 0.5f);
}

__global__ void checksum(const uint8_t* data, unsigned long long* sum, int n)
{
    unsigned long long local = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        local += data[i];
    atomicAdd(sum, local);
}

int main()
{
    std::vector<uint8_t> img(kPixels);
    for (int i = 0; i < kPixels; ++i) img[i] = static_cast<uint8_t>(i % 256);

    uint8_t *d_in, *d_out;
    unsigned long long* d_sum;
    CUDA_CHECK(cudaMalloc(&d_in, kPixels));
    CUDA_CHECK(cudaMalloc(&d_out, kPixels));
    CUDA_CHECK(cudaMalloc(&d_sum, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemcpy(d_in, img.data(), kPixels, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_sum, 0, sizeof(unsigned long long)));

    gamma_correct<<<(kPixels + 255) / 256, 256>>>(d_in, d_out, 1.0f / 2.2f, kPixels);
    checksum<<<256, 256>>>(d_in, d_sum, kPixels);
    CUDA_CHECK(cudaGetLastError());

    unsigned long long sum = 0;
    CUDA_CHECK(cudaMemcpy(&sum, d_sum, sizeof(sum), cudaMemcpyDeviceToHost));
    std::printf("checksum of corrected frame: %llu\n", sum);

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out)); // EXPECT: unread_kernel_output
    CUDA_CHECK(cudaFree(d_sum));
    return 0;
}
