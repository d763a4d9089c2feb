// case: RGB-to-grayscale converter class whose readback of the single-channel output uses the three-channel byte count, reading 3x past the gray buffer
// expect: copy_out_of_bounds=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t status = (call);                                        \
        if (status != cudaSuccess) {                                        \
            std::fprintf(stderr, "CUDA: %s (%s:%d)\n",                      \
                         cudaGetErrorString(status), __FILE__, __LINE__);   \
            std::abort();                                                   \
        }                                                                   \
    } while (0)

constexpr int kWidth = 640;
constexpr int kHeight = 480;
constexpr size_t kPixels = size_t(kWidth) * kHeight;
constexpr size_t kRgbBytes = kPixels * 3 * sizeof(float);
constexpr size_t kGrayBytes = kPixels * sizeof(float);

__global__ void rgb_to_gray(const float *rgb, float *gray, int pixels)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pixels) {
        float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
        gray[i] = 0.299f * r + 0.587f * g + 0.114f * b;
    }
}

class GrayConverter {
public:
    GrayConverter() {
        CUDA_CHECK(cudaMalloc(&d_rgb_, kRgbBytes));
        CUDA_CHECK(cudaMalloc(&d_gray_, kGrayBytes));
    }
    ~GrayConverter() {
        cudaFree(d_rgb_);
        cudaFree(d_gray_);
    }
    GrayConverter(const GrayConverter &) = delete;
    GrayConverter &operator=(const GrayConverter &) = delete;

    void run(const std::vector<float> &rgb, std::vector<float> &out) {
        CUDA_CHECK(cudaMemcpy(d_rgb_, rgb.data(), kRgbBytes, cudaMemcpyHostToDevice));
        rgb_to_gray<<<(kPixels + 255) / 256, 256>>>(d_rgb_, d_gray_, int(kPixels));
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpy(out.data(), d_gray_, kRgbBytes, cudaMemcpyDeviceToHost)); // EXPECT: copy_out_of_bounds
    }

private:
    float *d_rgb_ = nullptr;
    float *d_gray_ = nullptr;
};

int main()
{
    std::vector<float> rgb(kPixels * 3);
    for (size_t i = 0; i < rgb.size(); ++i) rgb[i] = float(i % 255) / 255.0f;
    std::vector<float> gray(kPixels * 3);

    GrayConverter conv;
    conv.run(rgb, gray);

    double mean = 0.0;
    for (size_t i = 0; i < kPixels; ++i) mean += gray[i];
    std::printf("mean luminance %.4f\n", mean / kPixels);
    return 0;
}
