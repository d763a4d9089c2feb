// case: a SAXPY pipeline reads results back into a cudaHostAlloc buffer through a stream and releases the device arrays but never calls cudaFreeHost on the readback buffer
// expect: device_memory_leak=1
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t _e = (x); if (_e != cudaSuccess) { \
    printf("error %d (%s) at line %d\n", (int)_e, cudaGetErrorString(_e), __LINE__); exit(1); } } while (0)

const int N = 1 << 24;
const float A = 2.5f;

__global__ void init_vectors(float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = 1.0f;
        y[i] = 2.0f;
    }
}

__global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
    cudaStream_t s;
    CK(cudaStreamCreate(&s));

    float *d_x, *d_y, *h_result;
    CK(cudaMalloc(&d_x, N * sizeof(float)));
    CK(cudaMalloc(&d_y, N * sizeof(float)));
    CK(cudaHostAlloc(&h_result, N * sizeof(float), cudaHostAllocDefault)); // EXPECT: device_memory_leak

    int threads = 512;
    int blocks = (N + threads - 1) / threads;
    init_vectors<<<blocks, threads, 0, s>>>(d_x, d_y, N);
    saxpy<<<blocks, threads, 0, s>>>(N, A, d_x, d_y);
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(h_result, d_y, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));

    float max_err = 0.0f;
    for (int i = 0; i < N; ++i) {
        float e = fabsf(h_result[i] - (A * 1.0f + 2.0f));
        if (e > max_err) max_err = e;
    }
    printf("max error: %g\n", max_err);

    CK(cudaFree(d_x));
    CK(cudaFree(d_y));
    CK(cudaStreamDestroy(s));
    return max_err > 1e-5f;
}
