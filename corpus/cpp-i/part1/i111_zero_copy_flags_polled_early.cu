// case: a validation kernel writes per-block error flags straight into mapped pinned memory through its device alias and the host scans the flags right after the launch without waiting for the kernel
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call) do { cudaError_t err = (call); if (err != cudaSuccess) { \
    fprintf(stderr, "CUDA %s: %s\n", #call, cudaGetErrorString(err)); exit(1); } } while (0)

__global__ void find_nans(const float* data, int n, int* block_flags) {
    __shared__ int any;
    if (threadIdx.x == 0) any = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && isnan(data[i])) any = 1;
    __syncthreads();
    if (threadIdx.x == 0) block_flags[blockIdx.x] = any;
}

int main() {
    CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
    const int n = 1 << 22;
    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;

    float* h_data = nullptr;
    float* d_data = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_data, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_data, n * sizeof(float)));
    for (int i = 0; i < n; ++i) h_data[i] = (i % 100003 == 7) ? NAN : 0.5f * i;

    int* h_flags = nullptr;
    int* d_flags = nullptr;
    CUDA_CHECK(cudaHostAlloc(&h_flags, blocks * sizeof(int), cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer(&d_flags, h_flags, 0));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemcpyAsync(d_data, h_data, n * sizeof(float), cudaMemcpyHostToDevice, s));
    find_nans<<<blocks, threads, 0, s>>>(d_data, n, d_flags);
    CUDA_CHECK(cudaGetLastError());

    int bad_blocks = 0;
    for (int b = 0; b < blocks; ++b)
        bad_blocks += h_flags[b]; // EXPECT: missing_sync
    printf("blocks containing NaN: %d\n", bad_blocks);

    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFreeHost(h_flags));
    CUDA_CHECK(cudaFree(d_data));
    CUDA_CHECK(cudaFreeHost(h_data));
    return 0;
}
