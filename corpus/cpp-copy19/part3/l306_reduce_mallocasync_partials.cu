// case: a stream-ordered sum reduction allocates its per-block partials and its total with cudaMallocAsync but releases only the total with cudaFreeAsync
// expect: device_memory_leak=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(expr)                                                         \
    do {                                                                         \
        cudaError_t status = (expr);                                             \
        if (status != cudaSuccess) {                                             \
            fprintf(stderr, "%s failed: %s\n", #expr, cudaGetErrorString(status)); \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

constexpr int kBlock = 256;

__global__ void block_sum(const float* __restrict__ x, float* partial, int n) {
    __shared__ float smem[kBlock];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x * 2 + tid;
    float v = 0.f;
    if (i < n) v += x[i];
    if (i + blockDim.x < n) v += x[i + blockDim.x];
    smem[tid] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) smem[tid] += smem[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = smem[0];
}

__global__ void final_sum(const float* partial, float* total, int m) {
    float acc = 0.f;
    for (int i = threadIdx.x; i < m; i += blockDim.x) acc += partial[i];
    atomicAdd(total, acc);
}

float device_sum(const float* d_x, int n, cudaStream_t stream) {
    int blocks = (n + kBlock * 2 - 1) / (kBlock * 2);
    float* d_partial = nullptr;
    float* d_total = nullptr;
    CUDA_CHECK(cudaMallocAsync(&d_partial, blocks * sizeof(float), stream)); // EXPECT: device_memory_leak
    CUDA_CHECK(cudaMallocAsync(&d_total, sizeof(float), stream));
    CUDA_CHECK(cudaMemsetAsync(d_total, 0, sizeof(float), stream));

    block_sum<<<blocks, kBlock, 0, stream>>>(d_x, d_partial, n);
    final_sum<<<1, kBlock, 0, stream>>>(d_partial, d_total, blocks);

    float result = 0.f;
    CUDA_CHECK(cudaMemcpyAsync(&result, d_total, sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaFreeAsync(d_total, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return result;
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : (1 << 22);
    std::vector<float> h(n, 0.5f);

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    float* d_x = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    for (int rep = 0; rep < 5; ++rep) {
        float s = device_sum(d_x, n, stream);
        printf("rep %d: sum = %.1f (expected %.1f)\n", rep, s, 0.5f * n);
    }

    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
