// case: an inference runtime's HostTensor<T> keeps its host copy in a std::vector and its upload() method enqueues a 16 MiB cudaMemcpyAsync from that pageable storage (the readback goes to pinned memory and is synchronized).
// expect: pageable_async_copy=1
#include <cuda_runtime.h>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#define CUDA_CHECK(expr)                                                              \
    do {                                                                              \
        cudaError_t e_ = (expr);                                                      \
        if (e_ != cudaSuccess)                                                        \
            throw std::runtime_error(std::string(#expr) + ": " + cudaGetErrorString(e_)); \
    } while (0)

template <typename T>
class DeviceBuffer {
public:
    explicit DeviceBuffer(size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&ptr_, n * sizeof(T))); }
    DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(o.n_) {}
    DeviceBuffer(const DeviceBuffer&) = delete;
    ~DeviceBuffer() { if (ptr_) cudaFree(ptr_); }
    T* get() const { return ptr_; }
    size_t size() const { return n_; }
    size_t bytes() const { return n_ * sizeof(T); }
private:
    T* ptr_ = nullptr;
    size_t n_ = 0;
};

template <typename T>
class HostTensor {
public:
    HostTensor(std::vector<int> shape) : shape_(std::move(shape)) {
        size_t n = 1;
        for (int d : shape_) n *= static_cast<size_t>(d);
        host_.resize(n);
    }
    T& operator[](size_t i) { return host_[i]; }
    size_t numel() const { return host_.size(); }

    // Enqueue the host data into `dst` on `stream`.
    void upload(DeviceBuffer<T>& dst, cudaStream_t stream) const {
        CUDA_CHECK(cudaMemcpyAsync(dst.get(), host_.data(), host_.size() * sizeof(T),
                                   cudaMemcpyHostToDevice, stream));
    }
private:
    std::vector<int> shape_;
    std::vector<T> host_;
};

__global__ void gelu_inplace(float* x, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        x[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    }
}

int main() {
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    HostTensor<float> activations({8, 512, 1024});
    for (size_t i = 0; i < activations.numel(); ++i) activations[i] = (i % 97) * 0.01f - 0.5f;

    DeviceBuffer<float> d_act(activations.numel());
    activations.upload(d_act, stream);

    unsigned blocks = static_cast<unsigned>((d_act.size() + 255) / 256);
    gelu_inplace<<<blocks, 256, 0, stream>>>(d_act.get(), d_act.size());

    float* h_out = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_out, d_act.bytes()));
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_act.get(), d_act.bytes(), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    double sum = 0.0;
    for (size_t i = 0; i < d_act.size(); ++i) sum += h_out[i];
    std::printf("gelu checksum %.4f\n", sum);

    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
