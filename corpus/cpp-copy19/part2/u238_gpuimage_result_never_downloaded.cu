// case: an RAII GpuImage pipeline uploads the source and runs an invert kernel into a second image, but never calls download() on it; the destructor frees the inverted pixels unread.
// expect: unread_kernel_output=1
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
    ~GpuImage() {
        cudaFree(data_); // EXPECT: unread_kernel_output
    }
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

static void run_invert(GpuImage& in, GpuImage& out)
{
    int n = in.width() * in.height();
    invert<<<(n + 255) / 256, 256>>>(in.data(), out.data(), n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
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
        run_invert(src, dst);
    }

    std::printf("result[10] = %d (expected %d)\n", result[10], 255 - pixels[10]);
    return 0;
}
