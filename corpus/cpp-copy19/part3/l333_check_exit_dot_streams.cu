// case: a chunked dot-product benchmark reports any CUDA error through a CUDA_CHECK macro that calls exit(), and frees every device and pinned buffer on the normal path
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                        \
    do {                                                                        \
        const cudaError_t error_code = call;                                    \
        if (error_code != cudaSuccess) {                                        \
            printf("CUDA Error:\n");                                            \
            printf("    File:       %s\n", __FILE__);                           \
            printf("    Line:       %d\n", __LINE__);                           \
            printf("    Error code: %d\n", error_code);                         \
            printf("    Error text: %s\n", cudaGetErrorString(error_code));     \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

const int N = 1 << 24;
const int HALF = N / 2;
const int BLOCK = 256;
const int GRID = 1024;

__global__ void dot_partial(const float* x, const float* y, float* out, int n) {
    __shared__ float cache[BLOCK];
    float t = 0.f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        t += x[i] * y[i];
    cache[threadIdx.x] = t;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) cache[threadIdx.x] += cache[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = cache[0];
}

int main() {
    float *h_x, *h_y, *h_part;
    CUDA_CHECK(cudaMallocHost(&h_x, N * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_y, N * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_part, 2 * GRID * sizeof(float)));
    for (int i = 0; i < N; ++i) { h_x[i] = 1.0f; h_y[i] = 0.5f; }

    float *d_x, *d_y, *d_part;
    CUDA_CHECK(cudaMalloc(&d_x, N * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, N * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_part, 2 * GRID * sizeof(float)));

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    for (int s = 0; s < 2; ++s) {
        const int off = s * HALF;
        CUDA_CHECK(cudaMemcpyAsync(d_x + off, h_x + off, HALF * sizeof(float),
                                   cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaMemcpyAsync(d_y + off, h_y + off, HALF * sizeof(float),
                                   cudaMemcpyHostToDevice, stream));
        dot_partial<<<GRID, BLOCK, 0, stream>>>(d_x + off, d_y + off, d_part + s * GRID, HALF);
        CUDA_CHECK(cudaMemcpyAsync(h_part + s * GRID, d_part + s * GRID, GRID * sizeof(float),
                                   cudaMemcpyDeviceToHost, stream));
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));

    double dot = 0.0;
    for (int i = 0; i < 2 * GRID; ++i) dot += h_part[i];
    printf("dot = %.1f (expected %.1f)\n", dot, 0.5 * N);

    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_part));
    CUDA_CHECK(cudaFreeHost(h_x));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaFreeHost(h_part));
    return 0;
}
