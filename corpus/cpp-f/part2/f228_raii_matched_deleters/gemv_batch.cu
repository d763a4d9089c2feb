// case: A batched GEMV benchmark owns device, pinned and malloc'd memory through unique_ptr aliases whose deleters match their allocators (cudaFree, cudaFreeHost, free) and page-locks a malloc'd buffer with a registration guard that unregisters exactly what it registered, after the stream has been synchronized.
// expect: none
#include "cuda_memory.hpp"
#include <cmath>

__global__ void gemv_rows(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                          int rows, int cols) {
    int r = blockIdx.x * blockDim.y + threadIdx.y;
    if (r >= rows) return;
    float acc = 0.f;
    for (int c = threadIdx.x; c < cols; c += 32) acc += A[size_t(r) * cols + c] * x[c];
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (threadIdx.x == 0) y[r] = acc;
}

int main() {
    const int rows = 16384, cols = 4096;
    const size_t a_elems = size_t(rows) * cols;
    cudaStream_t s;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) return 1;

    double norm = 0.0;
    {
        auto A_host = gpu::make_heap<float>(a_elems);          // malloc'd, then page-locked
        auto x_host = gpu::make_pinned<float>(cols);
        auto y_host = gpu::make_pinned<float>(rows);
        auto A_dev = gpu::make_device<float>(a_elems);
        auto x_dev = gpu::make_device<float>(cols);
        auto y_dev = gpu::make_device<float>(rows);

        for (size_t i = 0; i < a_elems; ++i) A_host[i] = float((i % 17) - 8) * 0.125f;
        for (int c = 0; c < cols; ++c) x_host[c] = std::cos(0.01f * c);

        gpu::HostRegistration reg(A_host.get(), a_elems * sizeof(float));
        if (!reg.ok()) { cudaStreamDestroy(s); return 2; }

        cudaMemcpyAsync(A_dev.get(), A_host.get(), a_elems * sizeof(float), cudaMemcpyHostToDevice, s);
        cudaMemcpyAsync(x_dev.get(), x_host.get(), cols * sizeof(float), cudaMemcpyHostToDevice, s);
        dim3 block(32, 8);
        gemv_rows<<<(rows + 7) / 8, block, 0, s>>>(A_dev.get(), x_dev.get(), y_dev.get(), rows, cols);
        cudaMemcpyAsync(y_host.get(), y_dev.get(), rows * sizeof(float), cudaMemcpyDeviceToHost, s);
        cudaStreamSynchronize(s);

        for (int r = 0; r < rows; ++r) norm += double(y_host[r]) * y_host[r];
    }   // reg unregisters, then the unique_ptrs release with their own deleters
    printf("||A x||_2 = %.5f\n", std::sqrt(norm));
    cudaStreamDestroy(s);
    return 0;
}
