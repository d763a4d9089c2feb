// case: a video filter page-locks its std::vector frame buffer in place with cudaHostRegister (RAII guard) before async round-trip copies, and touches the vector only after cudaStreamSynchronize, so neither the copies nor the host reads are hazards.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <vector>

#define CUDA_TRY(x)                                                              \
    do {                                                                         \
        cudaError_t rc = (x);                                                    \
        if (rc != cudaSuccess) throw std::runtime_error(cudaGetErrorName(rc));   \
    } while (0)

class HostRegistration {
public:
    HostRegistration(void* p, size_t bytes) : ptr_(p) {
        CUDA_TRY(cudaHostRegister(ptr_, bytes, cudaHostRegisterDefault));
    }
    ~HostRegistration() { cudaHostUnregister(ptr_); }
    HostRegistration(const HostRegistration&) = delete;
    HostRegistration& operator=(const HostRegistration&) = delete;
private:
    void* ptr_;
};

__global__ void box_blur_rows(const uint8_t* src, uint8_t* dst, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= width || y >= height) return;
    int acc = 0;
    for (int dx = -2; dx <= 2; ++dx) {
        int xx = min(width - 1, max(0, x + dx));
        acc += src[y * width + xx];
    }
    dst[y * width + x] = static_cast<uint8_t>(acc / 5);
}

class BlurFilter {
public:
    BlurFilter(int w, int h) : width_(w), height_(h) {
        CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_TRY(cudaMalloc(&d_src_, bytes()));
        CUDA_TRY(cudaMalloc(&d_dst_, bytes()));
    }
    ~BlurFilter() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_src_);
        cudaFree(d_dst_);
        cudaStreamDestroy(stream_);
    }
    size_t bytes() const { return static_cast<size_t>(width_) * height_; }

    void apply(std::vector<uint8_t>& frame) {
        HostRegistration pin(frame.data(), frame.size());
        CUDA_TRY(cudaMemcpyAsync(d_src_, frame.data(), bytes(), cudaMemcpyHostToDevice, stream_));
        dim3 grid((width_ + 127) / 128, height_);
        box_blur_rows<<<grid, 128, 0, stream_>>>(d_src_, d_dst_, width_, height_);
        CUDA_TRY(cudaMemcpyAsync(frame.data(), d_dst_, bytes(), cudaMemcpyDeviceToHost, stream_));
        CUDA_TRY(cudaStreamSynchronize(stream_));
    }

private:
    int width_, height_;
    cudaStream_t stream_{};
    uint8_t* d_src_ = nullptr;
    uint8_t* d_dst_ = nullptr;
};

int main() {
    const int w = 3840, h = 2160;
    BlurFilter filter(w, h);
    std::vector<uint8_t> frame(static_cast<size_t>(w) * h);
    for (int f = 0; f < 4; ++f) {
        for (size_t i = 0; i < frame.size(); ++i) frame[i] = static_cast<uint8_t>((i + f * 31) & 0xff);
        filter.apply(frame);
        unsigned long long sum = 0;
        for (uint8_t px : frame) sum += px;
        std::printf("frame %d mean %.2f\n", f, double(sum) / frame.size());
    }
    return 0;
}
