// case: unique_ptr aliases with CUDA deleters come from a header; the inputs use the matching factories, but the output staging buffer is allocated with cudaMallocHost inline and wrapped in device_unique, whose DeviceDeleter releases it with cudaFree.
// expect: mismatched_free=1
#include <algorithm>
#include <numeric>
#include <vector>
#include "cuda_memory.h"

constexpr std::size_t kRows = 4096, kCols = 1024;

__global__ void row_sums(const float* m, float* out, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.f;
    for (int c = 0; c < cols; ++c) acc += m[r * cols + c];
    out[r] = acc;
}

int main() {
    cudaStream_t s;
    CUDA_ASSERT(cudaStreamCreate(&s));

    auto h_mat = make_pinned<float>(kRows * kCols);
    auto d_mat = make_device<float>(kRows * kCols);
    auto d_out = make_device<float>(kRows);

    void* raw = nullptr;
    CUDA_ASSERT(cudaMallocHost(&raw, kRows * sizeof(float)));
    device_unique<float> h_out(static_cast<float*>(raw));

    std::fill(h_mat.get(), h_mat.get() + kRows * kCols, 0.5f);
    CUDA_ASSERT(cudaMemcpyAsync(d_mat.get(), h_mat.get(), kRows * kCols * sizeof(float),
                                cudaMemcpyHostToDevice, s));
    row_sums<<<(kRows + 127) / 128, 128, 0, s>>>(d_mat.get(), d_out.get(), kRows, kCols);
    CUDA_ASSERT(cudaMemcpyAsync(h_out.get(), d_out.get(), kRows * sizeof(float),
                                cudaMemcpyDeviceToHost, s));
    CUDA_ASSERT(cudaStreamSynchronize(s));

    double total = std::accumulate(h_out.get(), h_out.get() + kRows, 0.0);
    std::printf("total %.1f (expect %.1f)\n", total, 0.5 * kRows * kCols);

    CUDA_ASSERT(cudaStreamDestroy(s));
    return 0;
}
