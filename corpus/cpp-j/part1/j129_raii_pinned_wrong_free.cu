// case: a HostStaging RAII class allocates pinned memory with cudaMallocHost but its destructor releases it with cudaFree, which the runtime refuses, so every staging buffer leaks its pinned pages
// expect: mismatched_free=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CUDA_ASSERT(x) do { cudaError_t err = (x); if (err != cudaSuccess) { \
    fprintf(stderr, "fatal: %s (%s:%d)\n", cudaGetErrorString(err), __FILE__, __LINE__); exit(1); } } while (0)

class HostStaging {
public:
    explicit HostStaging(size_t bytes) : bytes_(bytes) {
        CUDA_ASSERT(cudaMallocHost(&ptr_, bytes));
    }
    ~HostStaging() {
        cudaFree(ptr_); // EXPECT: mismatched_free
    }
    HostStaging(const HostStaging&) = delete;
    HostStaging& operator=(const HostStaging&) = delete;
    void* data() { return ptr_; }
    size_t bytes() const { return bytes_; }
private:
    void* ptr_ = nullptr;
    size_t bytes_;
};

__global__ void invert(unsigned char* img, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) img[i] = 255 - img[i];
}

int main() {
    const size_t n = 3840 * 2160 * 3;
    cudaStream_t s;
    CUDA_ASSERT(cudaStreamCreate(&s));
    unsigned char* d_img;
    CUDA_ASSERT(cudaMalloc(&d_img, n));

    for (int frame = 0; frame < 4; ++frame) {
        HostStaging staging(n);
        memset(staging.data(), frame * 40, n);
        CUDA_ASSERT(cudaMemcpyAsync(d_img, staging.data(), n, cudaMemcpyHostToDevice, s));
        invert<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(d_img, n);
        CUDA_ASSERT(cudaMemcpyAsync(staging.data(), d_img, n, cudaMemcpyDeviceToHost, s));
        CUDA_ASSERT(cudaStreamSynchronize(s));
        printf("frame %d first byte %u\n", frame, static_cast<unsigned char*>(staging.data())[0]);
    }

    CUDA_ASSERT(cudaFree(d_img));
    CUDA_ASSERT(cudaStreamDestroy(s));
    return 0;
}
