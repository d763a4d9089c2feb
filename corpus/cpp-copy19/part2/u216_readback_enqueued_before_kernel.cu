// case: an RGBA-to-gray converter on a stream enqueues the device-to-host readback before the conversion kernel, so the copy reads d_gray uninitialized and the kernel's result is freed without being read.
// expect: uninitialized_device_read=1, unread_kernel_output=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "[cuda] %s failed: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

constexpr int kW = 1920;
constexpr int kH = 1080;
constexpr int kPixels = kW * kH;

__global__ void rgba_to_gray(const uchar4* rgba, uint8_t* gray, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        uchar4 p = rgba[i];
        gray[i] = static_cast<uint8_t>(0.299f * p.x + 0.587f * p.y + 0.114f * p.z);
    }
}

class GrayConverter {
public:
    GrayConverter() {
        CUDA_CHECK(cudaStreamCreate(&stream_));
        CUDA_CHECK(cudaMalloc(&d_rgba_, kPixels * sizeof(uchar4)));
        CUDA_CHECK(cudaMalloc(&d_gray_, kPixels * sizeof(uint8_t)));
    }
    ~GrayConverter() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_rgba_);
        cudaFree(d_gray_); // EXPECT: unread_kernel_output
        cudaStreamDestroy(stream_);
    }

    void convert(const uchar4* h_rgba_pinned, uint8_t* h_gray_pinned) {
        CUDA_CHECK(cudaMemcpyAsync(d_rgba_, h_rgba_pinned, kPixels * sizeof(uchar4), cudaMemcpyHostToDevice, stream_));
        CUDA_CHECK(cudaMemcpyAsync(h_gray_pinned, d_gray_, kPixels * sizeof(uint8_t), cudaMemcpyDeviceToHost, stream_)); // EXPECT: uninitialized_device_read
        rgba_to_gray<<<(kPixels + 255) / 256, 256, 0, stream_>>>(d_rgba_, d_gray_, kPixels);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

private:
    cudaStream_t stream_;
    uchar4* d_rgba_ = nullptr;
    uint8_t* d_gray_ = nullptr;
};

int main()
{
    uchar4* h_rgba;
    uint8_t* h_gray;
    CUDA_CHECK(cudaMallocHost(&h_rgba, kPixels * sizeof(uchar4)));
    CUDA_CHECK(cudaMallocHost(&h_gray, kPixels * sizeof(uint8_t)));
    for (int i = 0; i < kPixels; ++i) h_rgba[i] = make_uchar4(i % 256, (i / kW) % 256, 128, 255);

    {
        GrayConverter conv;
        conv.convert(h_rgba, h_gray);
    }

    long sum = 0;
    for (int i = 0; i < kPixels; ++i) sum += h_gray[i];
    std::printf("mean gray %.2f\n", double(sum) / kPixels);

    CUDA_CHECK(cudaFreeHost(h_rgba));
    CUDA_CHECK(cudaFreeHost(h_gray));
    return 0;
}
