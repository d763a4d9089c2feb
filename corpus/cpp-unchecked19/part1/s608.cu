// case: A byte histogram built with shared-memory atomics is timed with CUDA events whose two cudaEventRecord statuses are dropped; everything else is checked.
// expect: unchecked_cuda_result=2
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                       \
    do {                                                                       \
        cudaError_t err_ = (call);                                             \
        if (err_ != cudaSuccess) {                                             \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                 \
                    cudaGetErrorString(err_));                                 \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

__global__ void histogram256(const unsigned char* data, int n, unsigned int* hist) {
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}

int main() {
    const int n = 64 << 20;
    std::vector<unsigned char> data(n);
    for (int i = 0; i < n; ++i) data[i] = (unsigned char)((i * 2654435761u) >> 24);

    unsigned char* d_data = nullptr;
    unsigned int* d_hist = nullptr;
    CUDA_CHECK(cudaMalloc(&d_data, n));
    CUDA_CHECK(cudaMalloc(&d_hist, 256 * sizeof(unsigned int)));
    CUDA_CHECK(cudaMemcpy(d_data, data.data(), n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_hist, 0, 256 * sizeof(unsigned int)));

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));

    cudaEventRecord(start);  // EXPECT: unchecked_cuda_result
    histogram256<<<240, 256>>>(d_data, n, d_hist);
    CUDA_CHECK(cudaGetLastError());
    cudaEventRecord(stop);   // EXPECT: unchecked_cuda_result
    CUDA_CHECK(cudaEventSynchronize(stop));

    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    std::vector<unsigned int> hist(256);
    CUDA_CHECK(cudaMemcpy(hist.data(), d_hist, 256 * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    unsigned long long total = 0;
    for (unsigned int c : hist) total += c;
    printf("%llu bytes binned in %.3f ms (%.1f GB/s)\n", total, ms, n / ms / 1e6);

    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaFree(d_hist));
    CUDA_CHECK(cudaFree(d_data));
    return 0;
}
