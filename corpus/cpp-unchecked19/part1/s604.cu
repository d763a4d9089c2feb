// case: A RAII DeviceArray class checks its allocation and copies but its destructor drops cudaFree's status; a dot product uses two of them.
// expect: unchecked_cuda_result=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                       \
    do {                                                                       \
        cudaError_t st = (call);                                               \
        if (st != cudaSuccess) {                                               \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(st));        \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

class DeviceArray {
public:
    explicit DeviceArray(size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&ptr_, n_ * sizeof(float))); }
    ~DeviceArray() {
        cudaFree(ptr_);  // EXPECT: unchecked_cuda_result
    }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;

    void upload(const std::vector<float>& h) {
        CUDA_CHECK(cudaMemcpy(ptr_, h.data(), n_ * sizeof(float), cudaMemcpyHostToDevice));
    }
    void download(std::vector<float>& h) const {
        h.resize(n_);
        CUDA_CHECK(cudaMemcpy(h.data(), ptr_, n_ * sizeof(float), cudaMemcpyDeviceToHost));
    }
    float* get() { return ptr_; }
    size_t size() const { return n_; }

private:
    float* ptr_ = nullptr;
    size_t n_ = 0;
};

__global__ void multiply(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = a[i] * b[i];
}

int main() {
    const int n = 1 << 18;
    std::vector<float> a(n), b(n);
    for (int i = 0; i < n; ++i) {
        a[i] = 0.5f;
        b[i] = float(i % 7);
    }
    DeviceArray da(n), db(n);
    da.upload(a);
    db.upload(b);
    multiply<<<(n + 255) / 256, 256>>>(da.get(), db.get(), n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    std::vector<float> products;
    db.download(products);
    double dot = 0.0;
    for (float p : products) dot += p;
    printf("dot = %.1f\n", dot);
    return 0;
}
