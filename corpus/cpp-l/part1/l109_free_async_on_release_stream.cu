// case: a two-pass reduction takes its partial-sum workspace from the stream-ordered allocator on the main stream, but returns it with cudaFreeAsync on a separate release stream with no event ordering it after the two kernels that still use it.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t e = (call);                                                  \
        if (e != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            exit(EXIT_FAILURE);                                                  \
        }                                                                        \
    } while (0)

constexpr int kThreads = 256;

__global__ void partial_sums(const float* __restrict__ x, float* __restrict__ partial, size_t n) {
    __shared__ float sh[kThreads];
    float acc = 0.f;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        acc += x[i];
    sh[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = sh[0];
}

__global__ void final_sum(const float* __restrict__ partial, float* __restrict__ out, int nparts) {
    __shared__ float sh[kThreads];
    float acc = 0.f;
    for (int i = threadIdx.x; i < nparts; i += blockDim.x) acc += partial[i];
    sh[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) *out = sh[0];
}

int main() {
    const size_t n = size_t(1) << 26;
    const int nparts = 1024;

    float* h_x;
    CUDA_CHECK(cudaMallocHost(&h_x, n * sizeof(float)));
    for (size_t i = 0; i < n; ++i) h_x[i] = 1.0f / float(1 + (i % 64));

    cudaStream_t s_main, s_release;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s_main, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s_release, cudaStreamNonBlocking));

    float *d_x, *d_sum, *h_sum;
    CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_sum, sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_sum, sizeof(float)));
    CUDA_CHECK(cudaMemcpyAsync(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice, s_main));

    float* d_partial = nullptr;
    CUDA_CHECK(cudaMallocAsync(&d_partial, nparts * sizeof(float), s_main));
    partial_sums<<<nparts, kThreads, 0, s_main>>>(d_x, d_partial, n);
    final_sum<<<1, kThreads, 0, s_main>>>(d_partial, d_sum, nparts);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaFreeAsync(d_partial, s_release)); // EXPECT: missing_sync

    CUDA_CHECK(cudaMemcpyAsync(h_sum, d_sum, sizeof(float), cudaMemcpyDeviceToHost, s_main));
    CUDA_CHECK(cudaStreamSynchronize(s_main));
    printf("sum = %.4f\n", *h_sum);

    CUDA_CHECK(cudaStreamSynchronize(s_release));
    CUDA_CHECK(cudaStreamDestroy(s_main));
    CUDA_CHECK(cudaStreamDestroy(s_release));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_sum));
    CUDA_CHECK(cudaFreeHost(h_x));
    CUDA_CHECK(cudaFreeHost(h_sum));
    return 0;
}
