// case: a dot product whose per-block partials are consumed by a second reduction kernel, and only that final scalar is copied back; the partials are read by the second launch before they are freed.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s (%s:%d)\n", cudaGetErrorString(e), __FILE__, __LINE__); std::exit(1); } } while (0)

#define N (1 << 22)
#define THREADS 256
#define BLOCKS 240

__global__ void dot_partial(const float* x, const float* y, float* partial, int n)
{
    __shared__ float cache[THREADS];
    float t = 0.f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        t += x[i] * y[i];
    cache[threadIdx.x] = t;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) cache[threadIdx.x] += cache[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = cache[0];
}

__global__ void sum_partials(const float* partial, float* result, int count)
{
    __shared__ float cache[THREADS];
    cache[threadIdx.x] = threadIdx.x < count ? partial[threadIdx.x] : 0.f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) cache[threadIdx.x] += cache[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) *result = cache[0];
}

int main()
{
    std::vector<float> x(N, 0.5f), y(N, 2.0f);

    float *d_x, *d_y, *d_partials, *d_result;
    CUDA_CHECK(cudaMalloc(&d_x, N * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, N * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_partials, BLOCKS * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_result, sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_x, x.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_y, y.data(), N * sizeof(float), cudaMemcpyHostToDevice));

    dot_partial<<<BLOCKS, THREADS>>>(d_x, d_y, d_partials, N);
    sum_partials<<<1, THREADS>>>(d_partials, d_result, BLOCKS);
    CUDA_CHECK(cudaGetLastError());

    float dot = 0.f;
    CUDA_CHECK(cudaMemcpy(&dot, d_result, sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("dot = %f (expected %f)\n", dot, double(N));

    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_partials));
    CUDA_CHECK(cudaFree(d_result));
    return 0;
}
