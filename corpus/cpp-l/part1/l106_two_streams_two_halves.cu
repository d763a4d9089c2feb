// case: one device buffer and one pinned buffer are split into halves, each half uploaded, transformed and read back on its own stream; the host reduces the left half right after synchronizing only the left stream, which is correct because the right stream's work touches only the right halves.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t err = (call);                                                \
        if (err != cudaSuccess) {                                                \
            fprintf(stderr, "error %d (%s) at line %d\n", int(err),              \
                    cudaGetErrorString(err), __LINE__);                          \
            std::exit(1);                                                        \
        }                                                                        \
    } while (0)

__global__ void log1p_inplace(float* x, size_t n) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) x[i] = log1pf(fabsf(x[i]));
}

static double host_sum(const float* p, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; ++i) s += p[i];
    return s;
}

int main() {
    const size_t n = size_t(1) << 25;
    const size_t half = n / 2;
    const size_t half_bytes = half * sizeof(float);

    float* h_buf = nullptr;
    float* d_buf = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_buf, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_buf, n * sizeof(float)));
    for (size_t i = 0; i < n; ++i) h_buf[i] = float(i & 0xffff) - 32768.f;

    cudaStream_t s_left, s_right;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s_left, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s_right, cudaStreamNonBlocking));

    const unsigned blocks = unsigned((half + 511) / 512);

    CUDA_CHECK(cudaMemcpyAsync(d_buf, h_buf, half_bytes, cudaMemcpyHostToDevice, s_left));
    CUDA_CHECK(cudaMemcpyAsync(d_buf + half, h_buf + half, half_bytes, cudaMemcpyHostToDevice, s_right));
    log1p_inplace<<<blocks, 512, 0, s_left>>>(d_buf, half);
    log1p_inplace<<<blocks, 512, 0, s_right>>>(d_buf + half, half);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_buf, d_buf, half_bytes, cudaMemcpyDeviceToHost, s_left));
    CUDA_CHECK(cudaMemcpyAsync(h_buf + half, d_buf + half, half_bytes, cudaMemcpyDeviceToHost, s_right));

    // the left half is complete once s_left drains; the right half may still be in flight
    CUDA_CHECK(cudaStreamSynchronize(s_left));
    const double left = host_sum(h_buf, half);

    CUDA_CHECK(cudaStreamSynchronize(s_right));
    const double right = host_sum(h_buf + half, half);

    printf("left %.3f right %.3f\n", left, right);

    CUDA_CHECK(cudaStreamDestroy(s_left));
    CUDA_CHECK(cudaStreamDestroy(s_right));
    CUDA_CHECK(cudaFree(d_buf));
    CUDA_CHECK(cudaFreeHost(h_buf));
    return 0;
}
