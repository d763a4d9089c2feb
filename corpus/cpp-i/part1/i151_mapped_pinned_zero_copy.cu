// case: a zero-copy reduction allocates mapped pinned memory, gives the kernel the pointer from cudaHostGetDevicePointer and reads the host pointer only after the stream is synchronized
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void row_sums(const float* m, int rows, int cols, float* sums) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.f;
    for (int c = 0; c < cols; ++c) s += m[(size_t)r * cols + c];
    sums[r] = s;
}

int main() {
    CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
    const int rows = 8192, cols = 1024;
    const size_t mbytes = (size_t)rows * cols * sizeof(float);

    float *h_m, *d_m;
    CUDA_CHECK(cudaMallocHost(&h_m, mbytes));
    CUDA_CHECK(cudaMalloc(&d_m, mbytes));
    for (size_t i = 0; i < (size_t)rows * cols; ++i) h_m[i] = (float)(i % cols) / cols;

    float* h_sums = nullptr;
    float* d_sums_alias = nullptr;
    CUDA_CHECK(cudaHostAlloc(&h_sums, rows * sizeof(float), cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer(&d_sums_alias, h_sums, 0));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemcpyAsync(d_m, h_m, mbytes, cudaMemcpyHostToDevice, s));
    row_sums<<<(rows + 127) / 128, 128, 0, s>>>(d_m, rows, cols, d_sums_alias);
    CUDA_CHECK(cudaStreamSynchronize(s));

    double total = 0.0;
    for (int r = 0; r < rows; ++r) total += h_sums[r];
    printf("row 0 sum %.3f, total %.1f\n", h_sums[0], total);

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFreeHost(h_sums));
    CUDA_CHECK(cudaFree(d_m));
    CUDA_CHECK(cudaFreeHost(h_m));
    return 0;
}
