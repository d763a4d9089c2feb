// host_deref_device_ptr, the fix: copy the data back to host memory (cudaMemcpy) and read that.
//
// As in host_deref_device_ptr_bug.cu, 1024 floats (0, 1, 2, ...) are copied into cudaMalloc'd
// memory and a kernel doubles them; the host reads them only after copying them back.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                  \
                    cudaGetErrorString(err_));                                             \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

__global__ void twice(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}

int main() {
    const int n = 1024;
    float h[n];
    for (int i = 0; i < n; ++i) h[i] = (float)i;
    float* d;
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    twice<<<(n + 255) / 256, 256>>>(d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));

    double sum = 0;
    for (int i = 0; i < n; ++i) sum += h[i];
    printf("host_deref_device_ptr_fixed: copied back with cudaMemcpy: h[1] = %g, sum = %.0f "
           "(expected 2 and %d)\n", h[1], sum, n * (n - 1));
    CHECK(cudaFree(d));
    return 0;
}
