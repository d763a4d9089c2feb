// case: a stream made with plain cudaStreamCreate (blocking) runs the upload and a SAXPY kernel, then a plain cudaMemcpy on the legacy default stream reads the result; the legacy stream waits for all work of blocking streams, so the copy and the host reads after it are correct (default legacy default-stream build).
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cmath>
#include <cstdlib>

#define CHECK(call)                                                              \
    do {                                                                         \
        const cudaError_t error = (call);                                        \
        if (error != cudaSuccess) {                                              \
            printf("Error: %s:%d, code %d, reason %s\n", __FILE__, __LINE__,      \
                   error, cudaGetErrorString(error));                            \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

__global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
    const int n = 1 << 24;
    const size_t bytes = size_t(n) * sizeof(float);

    float *h_x, *h_y;
    CHECK(cudaMallocHost(&h_x, bytes));
    CHECK(cudaMallocHost(&h_y, bytes));
    for (int i = 0; i < n; ++i) {
        h_x[i] = 1.0f;
        h_y[i] = 2.0f;
    }

    float *d_x, *d_y;
    CHECK(cudaMalloc(&d_x, bytes));
    CHECK(cudaMalloc(&d_y, bytes));

    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));

    CHECK(cudaMemcpyAsync(d_x, h_x, bytes, cudaMemcpyHostToDevice, stream));
    CHECK(cudaMemcpyAsync(d_y, h_y, bytes, cudaMemcpyHostToDevice, stream));
    saxpy<<<(n + 255) / 256, 256, 0, stream>>>(n, 2.0f, d_x, d_y);
    CHECK(cudaGetLastError());

    // legacy default stream: implicitly ordered after the blocking stream's work
    CHECK(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));

    float max_err = 0.0f;
    for (int i = 0; i < n; ++i) max_err = fmaxf(max_err, fabsf(h_y[i] - 4.0f));
    printf("Max error: %f\n", max_err);

    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    CHECK(cudaFreeHost(h_x));
    CHECK(cudaFreeHost(h_y));
    return 0;
}
