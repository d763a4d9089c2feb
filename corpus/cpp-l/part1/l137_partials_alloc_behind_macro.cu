// case: a threadfence-style single-pass sum writes per-block partials to a workspace whose cudaMalloc was moved under #ifdef ENABLE_TWO_PASS_REDUCE together with the second pass, a macro this build never defines, so the reduction kernel is launched with a workspace pointer that is still nullptr.
// expect: unallocated_pointer=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t e = (call);                                                  \
        if (e != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            return 1;                                                            \
        }                                                                        \
    } while (0)

constexpr int kThreads = 256;

__device__ unsigned int g_blocks_done = 0;

__global__ void sum_single_pass(const float* x, size_t n, float* partials, float* result) {
    __shared__ float sh[kThreads];
    __shared__ bool last_block;
    float acc = 0.f;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        acc += x[i];
    sh[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = sh[0];
        __threadfence();
        unsigned int ticket = atomicInc(&g_blocks_done, gridDim.x);
        last_block = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (last_block) {
        float total = 0.f;
        for (int b = threadIdx.x; b < gridDim.x; b += blockDim.x) total += partials[b];
        sh[threadIdx.x] = total;
        __syncthreads();
        for (int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
            __syncthreads();
        }
        if (threadIdx.x == 0) *result = sh[0];
    }
}

#ifdef ENABLE_TWO_PASS_REDUCE
__global__ void sum_partials(const float* partials, int n, float* result) {
    float acc = 0.f;
    for (int i = 0; i < n; ++i) acc += partials[i];
    *result = acc;
}
#endif

int main() {
    const size_t n = size_t(1) << 24;
    const int blocks = 512;

    float* h_x = static_cast<float*>(malloc(n * sizeof(float)));
    for (size_t i = 0; i < n; ++i) h_x[i] = 0.5f;

    float* d_x = nullptr;
    float* d_result = nullptr;
    float* d_partials = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_result, sizeof(float)));
#ifdef ENABLE_TWO_PASS_REDUCE
    CUDA_CHECK(cudaMalloc(&d_partials, blocks * sizeof(float)));
#endif
    CUDA_CHECK(cudaMemcpy(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice));

    sum_single_pass<<<blocks, kThreads>>>(d_x, n, d_partials, d_result); // EXPECT: unallocated_pointer
    CUDA_CHECK(cudaGetLastError());
#ifdef ENABLE_TWO_PASS_REDUCE
    sum_partials<<<1, 1>>>(d_partials, blocks, d_result);
#endif

    float sum = 0.f;
    CUDA_CHECK(cudaMemcpy(&sum, d_result, sizeof(float), cudaMemcpyDeviceToHost));
    printf("sum = %.1f (expected %.1f)\n", sum, 0.5 * double(n));

    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_result));
    cudaFree(d_partials);
    free(h_x);
    return 0;
}
