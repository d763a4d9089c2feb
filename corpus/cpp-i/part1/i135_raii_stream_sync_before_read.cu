// case: RAII wrappers own a stream, pinned and device buffers; the histogram-equalization pass downloads into pinned memory and synchronizes the stream before the host reads it
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <utility>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

class Stream {
public:
    Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    ~Stream() { cudaStreamDestroy(s_); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    operator cudaStream_t() const { return s_; }
    void sync() const { CUDA_CHECK(cudaStreamSynchronize(s_)); }
private:
    cudaStream_t s_ = nullptr;
};

template <typename T>
class Pinned {
public:
    explicit Pinned(size_t n) : n_(n) { CUDA_CHECK(cudaMallocHost(&p_, n * sizeof(T))); }
    ~Pinned() { cudaFreeHost(p_); }
    T* get() { return p_; }
    T& operator[](size_t i) { return p_[i]; }
    size_t bytes() const { return n_ * sizeof(T); }
private:
    T* p_ = nullptr;
    size_t n_;
};

template <typename T>
class Device {
public:
    explicit Device(size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&p_, n * sizeof(T))); }
    ~Device() { cudaFree(p_); }
    T* get() { return p_; }
    size_t bytes() const { return n_ * sizeof(T); }
private:
    T* p_ = nullptr;
    size_t n_;
};

__global__ void count_levels(const unsigned char* img, int n, unsigned* hist) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[img[i]], 1u);
}

int main() {
    const int n = 3840 * 2160;
    Stream stream;
    Pinned<unsigned char> h_img(n);
    Pinned<unsigned> h_hist(256);
    Device<unsigned char> d_img(n);
    Device<unsigned> d_hist(256);
    for (int i = 0; i < n; ++i) h_img[i] = (unsigned char)((i / 3840) * 255 / 2160);

    CUDA_CHECK(cudaMemcpyAsync(d_img.get(), h_img.get(), h_img.bytes(), cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemsetAsync(d_hist.get(), 0, d_hist.bytes(), stream));
    count_levels<<<(n + 255) / 256, 256, 0, stream>>>(d_img.get(), n, d_hist.get());
    CUDA_CHECK(cudaMemcpyAsync(h_hist.get(), d_hist.get(), h_hist.bytes(), cudaMemcpyDeviceToHost, stream));
    stream.sync();

    unsigned cdf[256];
    unsigned run = 0;
    for (int v = 0; v < 256; ++v) { run += h_hist[v]; cdf[v] = run; }
    printf("median level: ");
    for (int v = 0; v < 256; ++v) if (cdf[v] >= (unsigned)n / 2) { printf("%d\n", v); break; }
    return 0;
}
