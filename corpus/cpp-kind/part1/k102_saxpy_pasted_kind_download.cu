// case: a SAXPY benchmark reads its result back with the argument order right but the HostToDevice kind pasted from the upload line above, so a std::vector is the destination of a "to device" copy.
// expect: memcpy_kind_mismatch=1
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
    const int n = 4 << 20;
    const size_t bytes = n * sizeof(float);
    std::vector<float> x(n, 1.0f), y(n, 2.0f);

    float *d_x = nullptr, *d_y = nullptr;
    cudaMalloc((void**)&d_x, bytes);
    cudaMalloc((void**)&d_y, bytes);

    cudaMemcpy(d_x, x.data(), bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, y.data(), bytes, cudaMemcpyHostToDevice);

    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start);
    saxpy<<<(n + 511) / 512, 512>>>(n, 2.0f, d_x, d_y);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0.f;
    cudaEventElapsedTime(&ms, start, stop);

    cudaMemcpy(y.data(), d_y, bytes, cudaMemcpyHostToDevice); // EXPECT: memcpy_kind_mismatch

    float maxErr = 0.f;
    for (int i = 0; i < n; ++i) maxErr = fmaxf(maxErr, fabsf(y[i] - 4.0f));
    printf("time %.3f ms, bandwidth %.1f GB/s, max error %f\n",
           ms, 3.0 * bytes / ms / 1e6, maxErr);

    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFree(d_x);
    cudaFree(d_y);
    return 0;
}
