// case: a temperature-conversion batch on a non-blocking stream copies the kernel's output back into pinned memory with cudaMemcpyAsync and synchronizes before the host reads it and the buffer is freed.
// expect: none
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

class ConversionJob {
public:
    ConversionJob() {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMallocHost(&h_in_, kReadings * sizeof(float)));
        CUDA_CHECK(cudaMallocHost(&h_out_, kReadings * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_in_, kReadings * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_out_, kReadings * sizeof(float)));
    }
    ~ConversionJob() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_in_);
        cudaFree(d_out_);
        cudaFreeHost(h_in_);
        cudaFreeHost(h_out_);
        cudaStreamDestroy(stream_);
    }

    float* input() { return h_in_; }
    const float* output() const { return h_out_; }

    void run() {
        CUDA_CHECK(cudaMemcpyAsync(d_in_, h_in_, kReadings * sizeof(float), cudaMemcpyHostToDevice, stream_));
        fahrenheit_to_kelvin<<<(kReadings + 511) / 512, 512, 0, stream_>>>(d_in_, d_out_, kReadings);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_out_, d_out_, kReadings * sizeof(float), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

private:
    cudaStream_t stream_;
    float* h_in_ = nullptr;
    float* h_out_ = nullptr;
    float* d_in_ = nullptr;
    float* d_out_ = nullptr;
};

int main()
{
    ConversionJob job;
    float* in = job.input();
    for (int i = 0; i < kReadings; ++i) in[i] = 32.0f + (i % 180);
    job.run();
    std::printf("reading[100] = %f K\n", job.output()[100]);
    return 0;
}
