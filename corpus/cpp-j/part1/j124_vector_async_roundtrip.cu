// case: a preprocessing step uploads a std::vector with cudaMemcpyAsync and downloads the result into another std::vector the same way; both host sides are pageable, so the async copies are staged and do not overlap (reading the vector after the download is itself fine)
// expect: pageable_async_copy=2
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(e) do { cudaError_t err_ = (e); if (err_ != cudaSuccess) { \
    fprintf(stderr, "CUDA %s at %s:%d\n", cudaGetErrorString(err_), __FILE__, __LINE__); exit(1); } } while (0)

__global__ void normalize(const unsigned char* px, float* out, int n, float mean, float inv_std) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (px[i] / 255.f - mean) * inv_std;
}

static std::vector<float> preprocess(const std::vector<unsigned char>& image, cudaStream_t stream) {
    const int n = static_cast<int>(image.size());
    unsigned char* d_px = nullptr;
    float* d_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_px, n));
    CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(float)));

    CUDA_CHECK(cudaMemcpyAsync(d_px, image.data(), n, cudaMemcpyHostToDevice, stream)); // EXPECT: pageable_async_copy
    normalize<<<(n + 255) / 256, 256, 0, stream>>>(d_px, d_out, n, 0.45f, 1.f / 0.225f);
    CUDA_CHECK(cudaGetLastError());

    std::vector<float> result(n);
    CUDA_CHECK(cudaMemcpyAsync(result.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost, stream)); // EXPECT: pageable_async_copy
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_px));
    return result;
}

int main(int argc, char** argv) {
    const int side = argc > 1 ? atoi(argv[1]) : 1024;
    std::vector<unsigned char> image(size_t(side) * side * 3);
    for (size_t i = 0; i < image.size(); ++i) image[i] = static_cast<unsigned char>(i * 31);

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    std::vector<float> tensor = preprocess(image, stream);
    double mean = 0;
    for (float v : tensor) mean += v;
    printf("mean of normalized tensor: %f\n", mean / tensor.size());
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
