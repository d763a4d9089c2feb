// case: columnar scan exporter allocates its aligned export buffer with posix_memalign (never page-locked) and reads query results into it with cudaMemcpyAsync, synchronizing before use: the async copy's host side is pageable
// expect: pageable_async_copy=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

__global__ void project_price_qty(const float* price, const int32_t* qty, double* revenue, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) revenue[i] = (double)price[i] * qty[i];
}

struct ExportBuffer {
    double* data = nullptr;
    size_t count = 0;
};

static bool make_export_buffer(ExportBuffer& eb, size_t count) {
    void* p = nullptr;
    if (posix_memalign(&p, 4096, count * sizeof(double)) != 0) return false;
    eb.data = static_cast<double*>(p);
    eb.count = count;
    return true;
}

int main() {
    const size_t n = 1u << 23;
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    float* d_price = nullptr;
    int32_t* d_qty = nullptr;
    double* d_rev = nullptr;
    CUDA_CHECK(cudaMalloc(&d_price, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_qty, n * sizeof(int32_t)));
    CUDA_CHECK(cudaMalloc(&d_rev, n * sizeof(double)));
    CUDA_CHECK(cudaMemsetAsync(d_price, 0, n * sizeof(float), s));
    CUDA_CHECK(cudaMemsetAsync(d_qty, 0, n * sizeof(int32_t), s));

    ExportBuffer out;
    if (!make_export_buffer(out, n)) {
        std::fprintf(stderr, "out of host memory\n");
        return 1;
    }

    project_price_qty<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(d_price, d_qty, d_rev, n);
    CUDA_CHECK(cudaMemcpyAsync(out.data, d_rev, out.count * sizeof(double), cudaMemcpyDeviceToHost, s)); // EXPECT: pageable_async_copy
    CUDA_CHECK(cudaStreamSynchronize(s));

    double total = 0.0;
    for (size_t i = 0; i < out.count; ++i) total += out.data[i];
    std::printf("total revenue %.2f\n", total);

    std::free(out.data);
    CUDA_CHECK(cudaFree(d_rev));
    CUDA_CHECK(cudaFree(d_qty));
    CUDA_CHECK(cudaFree(d_price));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
