// case: an anomaly detector writes one flag per sample straight into mapped (zero-copy) pinned memory through the device alias from cudaHostGetDevicePointer; the host counts the flags through its own pointer only after synchronizing the stream, and the buffer is plain (not write-combined) pinned memory, so the code is correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t e = (call);                                                  \
        if (e != cudaSuccess) {                                                  \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e));           \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

__global__ void flag_outliers(const float* x, int* flags, int n, float mean, float thresh) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) flags[i] = fabsf(x[i] - mean) > thresh ? 1 : 0;
}

int main() {
    CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
    const int n = 1 << 22;

    float* h_x = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_x, n * sizeof(float)));
    for (int i = 0; i < n; ++i) h_x[i] = (i % 9973 == 0) ? 50.f : float(i % 7) - 3.f;

    int* h_flags = nullptr;
    CUDA_CHECK(cudaHostAlloc(&h_flags, n * sizeof(int), cudaHostAllocMapped));
    std::memset(h_flags, 0, n * sizeof(int));
    int* d_flags_alias = nullptr;
    CUDA_CHECK(cudaHostGetDevicePointer(&d_flags_alias, h_flags, 0));

    float* d_x = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemcpyAsync(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice, s));
    flag_outliers<<<(n + 255) / 256, 256, 0, s>>>(d_x, d_flags_alias, n, 0.f, 10.f);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(s));

    int outliers = 0;
    for (int i = 0; i < n; ++i) outliers += h_flags[i];
    printf("%d outliers\n", outliers);

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFreeHost(h_flags));
    CUDA_CHECK(cudaFreeHost(h_x));
    return 0;
}
