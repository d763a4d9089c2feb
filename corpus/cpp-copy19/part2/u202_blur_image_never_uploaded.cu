// case: a box-blur with an RAII GpuImage class whose upload() is never called for the source image, so the blur kernel reads uninitialized device pixels.
// expect: uninitialized_device_read=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t err_ = (call);                                            \
        if (err_ != cudaSuccess) {                                            \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,            \
                         cudaGetErrorString(err_));                           \
            std::exit(EXIT_FAILURE);                                          \
        }                                                                     \
    } while (0)

constexpr int kWidth = 512;
constexpr int kHeight = 512;
constexpr int kRadius = 2;

class GpuImage {
public:
    GpuImage(int w, int h) : w_(w), h_(h) {
        CUDA_CHECK(cudaMalloc(&data_, bytes()));
    }
    ~GpuImage() { cudaFree(data_); }
    GpuImage(const GpuImage&) = delete;
    GpuImage& operator=(const GpuImage&) = delete;

    size_t bytes() const { return size_t(w_) * h_ * sizeof(unsigned char); }
    unsigned char* data() { return data_; }
    void upload(const std::vector<unsigned char>& src) {
        CUDA_CHECK(cudaMemcpy(data_, src.data(), bytes(), cudaMemcpyHostToDevice));
    }
    void download(std::vector<unsigned char>& dst) const {
        CUDA_CHECK(cudaMemcpy(dst.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    }

private:
    int w_, h_;
    unsigned char* data_ = nullptr;
};

__global__ void box_blur(const unsigned char* src, unsigned char* dst, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int sum = 0, count = 0;
    for (int dy = -kRadius; dy <= kRadius; ++dy) {
        for (int dx = -kRadius; dx <= kRadius; ++dx) {
            int xx = min(max(x + dx, 0), w - 1);
            int yy = min(max(y + dy, 0), h - 1);
            sum += src[yy * w + xx];
            ++count;
        }
    }
    dst[y * w + x] = static_cast<unsigned char>(sum / count);
}

int main()
{
    std::vector<unsigned char> pixels(kWidth * kHeight);
    for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<unsigned char>(i * 7);
    std::vector<unsigned char> blurred(kWidth * kHeight);

    GpuImage in(kWidth, kHeight);
    GpuImage out(kWidth, kHeight);

    dim3 block(16, 16);
    dim3 grid((kWidth + 15) / 16, (kHeight + 15) / 16);
    box_blur<<<grid, block>>>(in.data(), out.data(), kWidth, kHeight); // EXPECT: uninitialized_device_read
    CUDA_CHECK(cudaGetLastError());

    out.download(blurred);
    std::printf("center pixel: %d\n", blurred[(kHeight / 2) * kWidth + kWidth / 2]);
    return 0;
}
