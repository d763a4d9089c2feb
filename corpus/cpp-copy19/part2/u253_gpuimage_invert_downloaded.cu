// case: an RAII GpuImage pipeline runs an invert kernel into a second image and downloads it before the destructors free both images.
// expect: none
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

class GpuImage {
public:
    GpuImage(int w, int h) : w_(w), h_(h) { CUDA_CHECK(cudaMalloc(&data_, bytes())); }
    ~GpuImage() { cudaFree(data_); }
    GpuImage(const GpuImage&) = delete;
    GpuImage& operator=(const GpuImage&) = delete;

    size_t bytes() const { return size_t(w_) * h_; }
    int width() const { return w_; }
    int height() const { return h_; }
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

__global__ void invert(const unsigned char* src, unsigned char* dst, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = 255 - src[i];
}

int main()
{
    const int w = 800, h = 600;
    std::vector<unsigned char> pixels(w * h), result(w * h, 0);
    for (int i = 0; i < w * h; ++i) pixels[i] = static_cast<unsigned char>(i % 251);

    {
        GpuImage src(w, h);
        GpuImage dst(w, h);
        src.upload(pixels);
        int n = w * h;
        invert<<<(n + 255) / 256, 256>>>(src.data(), dst.data(), n);
        CUDA_CHECK(cudaGetLastError());
        dst.download(result);
    }

    std::printf("result[10] = %d (expected %d)\n", result[10], 255 - pixels[10]);
    return 0;
}
