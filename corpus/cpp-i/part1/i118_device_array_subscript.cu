// case: a templated RAII DeviceArray<T> exposes an operator[] that indexes its cudaMalloc'd storage, and host code uses it to spot-check a kernel's output
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s\n", cudaGetErrorString(e)); exit(1); } } while (0)

template <typename T>
class DeviceArray {
public:
    explicit DeviceArray(size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&data_, n_ * sizeof(T))); }
    ~DeviceArray() { cudaFree(data_); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;

    T* data() { return data_; }
    const T* data() const { return data_; }
    size_t size() const { return n_; }

    void upload(const std::vector<T>& h) {
        CUDA_CHECK(cudaMemcpy(data_, h.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
    }
    void download(std::vector<T>& h) const {
        h.resize(n_);
        CUDA_CHECK(cudaMemcpy(h.data(), data_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    }
    T& operator[](size_t i) { return data_[i]; }

private:
    T* data_ = nullptr;
    size_t n_;
};

template <typename T>
__global__ void clamp_kernel(const T* in, T* out, size_t n, T lo, T hi) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] < lo ? lo : (in[i] > hi ? hi : in[i]);
}

int main() {
    const size_t n = 1 << 20;
    std::vector<int> h(n);
    for (size_t i = 0; i < n; ++i) h[i] = (int)(i % 512) - 256;

    DeviceArray<int> in(n), out(n);
    in.upload(h);
    clamp_kernel<int><<<(unsigned)((n + 255) / 256), 256>>>(in.data(), out.data(), n, -100, 100);
    CUDA_CHECK(cudaDeviceSynchronize());

    int probe = out[5]; // EXPECT: host_deref_device_ptr
    printf("probe %d\n", probe);

    std::vector<int> result;
    out.download(result);
    long long s = 0;
    for (int v : result) s += v;
    printf("sum %lld\n", s);
    return 0;
}
