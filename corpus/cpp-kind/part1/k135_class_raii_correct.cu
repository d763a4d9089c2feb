// case: a templated GpuArray<T> class owning a cudaMalloc buffer offers copyFrom(const std::vector&) and copyTo(std::vector&) with correct directions, used by a dot-product benchmark.
// expect: none
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

template <typename T>
class GpuArray {
public:
    explicit GpuArray(size_t n) : n_(n) { cudaMalloc(&ptr_, n_ * sizeof(T)); }
    ~GpuArray() { cudaFree(ptr_); }
    GpuArray(const GpuArray&) = delete;
    GpuArray& operator=(const GpuArray&) = delete;

    void copyFrom(const std::vector<T>& src) {
        cudaMemcpy(ptr_, src.data(), n_ * sizeof(T), cudaMemcpyHostToDevice);
    }
    void copyTo(std::vector<T>& dst) const {
        dst.resize(n_);
        cudaMemcpy(dst.data(), ptr_, n_ * sizeof(T), cudaMemcpyDeviceToHost);
    }
    void copyFrom(const GpuArray& other) {
        cudaMemcpy(ptr_, other.ptr_, n_ * sizeof(T), cudaMemcpyDeviceToDevice);
    }
    T* get() { return ptr_; }
    size_t size() const { return n_; }

private:
    T* ptr_ = nullptr;
    size_t n_;
};

__global__ void dotPartial(const float* a, const float* b, float* partial, int n) {
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = (i < n) ? a[i] * b[i] : 0.f;
    __syncthreads();
    for (int st = blockDim.x / 2; st > 0; st >>= 1) {
        if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

int main() {
    const int n = 1 << 20, blocks = n / 256;
    std::vector<float> x(n, 0.5f), partial;
    GpuArray<float> a(n), b(n), p(blocks);
    a.copyFrom(x);
    b.copyFrom(a);
    dotPartial<<<blocks, 256>>>(a.get(), b.get(), p.get(), n);
    p.copyTo(partial);
    double dot = 0;
    for (float v : partial) dot += v;
    printf("dot = %f (expect %f)\n", dot, 0.25 * n);
    return 0;
}
