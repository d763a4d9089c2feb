// case: a PinnedBuffer RAII class allocates with cudaHostAlloc(cudaHostAllocPortable) but its destructor calls cudaFree, which refuses host memory and leaks it
// expect: mismatched_free=1
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

template <typename T>
class PinnedBuffer {
public:
    explicit PinnedBuffer(size_t n) : n_(n) {
        CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&ptr_), n_ * sizeof(T), cudaHostAllocPortable));
    }
    ~PinnedBuffer() {
        if (ptr_) cudaFree(ptr_); // EXPECT: mismatched_free
    }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    PinnedBuffer(PinnedBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(o.n_) {}

    T* get() { return ptr_; }
    size_t size() const { return n_; }
    size_t bytes() const { return n_ * sizeof(T); }

private:
    T* ptr_ = nullptr;
    size_t n_ = 0;
};

template <typename T>
class DeviceBuffer {
public:
    explicit DeviceBuffer(size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&ptr_, n_ * sizeof(T))); }
    ~DeviceBuffer() { cudaFree(ptr_); }
    T* get() { return ptr_; }

private:
    T* ptr_ = nullptr;
    size_t n_;
};

__global__ void cumulative_max(const float* in, float* out, int n, int window) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float m = in[i];
    for (int k = 1; k < window && i - k >= 0; ++k) m = fmaxf(m, in[i - k]);
    out[i] = m;
}

int main() {
    const int n = 1 << 20;
    PinnedBuffer<float> h_in(n);
    DeviceBuffer<float> d_in(n), d_out(n);
    for (int i = 0; i < n; ++i) h_in.get()[i] = (float)((i * 37) % 101);

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemcpyAsync(d_in.get(), h_in.get(), h_in.bytes(), cudaMemcpyHostToDevice, s));
    cumulative_max<<<(n + 255) / 256, 256, 0, s>>>(d_in.get(), d_out.get(), n, 8);
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaStreamDestroy(s));

    std::vector<float> out(n);
    CUDA_CHECK(cudaMemcpy(out.data(), d_out.get(), n * sizeof(float), cudaMemcpyDeviceToHost));
    printf("out[100] = %.1f\n", out[100]);
    return 0;
}
