// case: a temperature-conversion batch runs on its own stream and is synchronized, but the converted readings are never copied back before the device buffer is freed; the host prints its input.
// expect: unread_kernel_output=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)

constexpr int kReadings = 1 << 20;

__global__ void fahrenheit_to_kelvin(const float* f, float* k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) k[i] = (f[i] - 32.0f) * (5.0f / 9.0f) + 273.15f;
}

struct Batch {
    cudaStream_t stream;
    float* h_in;
    float* d_in;
    float* d_out;
};

static void batch_create(Batch& b)
{
    CUDA_CHECK(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMallocHost(&b.h_in, kReadings * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&b.d_in, kReadings * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&b.d_out, kReadings * sizeof(float)));
}

static void batch_run(Batch& b)
{
    CUDA_CHECK(cudaMemcpyAsync(b.d_in, b.h_in, kReadings * sizeof(float), cudaMemcpyHostToDevice, b.stream));
    fahrenheit_to_kelvin<<<(kReadings + 511) / 512, 512, 0, b.stream>>>(b.d_in, b.d_out, kReadings);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(b.stream));
}

static void batch_destroy(Batch& b)
{
    CUDA_CHECK(cudaFree(b.d_in));
    CUDA_CHECK(cudaFree(b.d_out)); // EXPECT: unread_kernel_output
    CUDA_CHECK(cudaFreeHost(b.h_in));
    CUDA_CHECK(cudaStreamDestroy(b.stream));
}

int main()
{
    Batch b;
    batch_create(b);
    for (int i = 0; i < kReadings; ++i) b.h_in[i] = 32.0f + (i % 180);
    batch_run(b);
    std::printf("reading[100] = %f K\n", b.h_in[100]);
    batch_destroy(b);
    return 0;
}
