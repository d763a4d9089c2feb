// case: copies between pinned host memory, managed memory and device memory all use cudaMemcpyDefault or a kind that matches, and a DeviceToDevice copy stages into managed memory; no stated direction contradicts where the memory lives
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CC(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%d: %s\n", __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void axpby(const double* x, double* y, double a, double b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + b * y[i];
}

int main() {
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(double);

    double* pinned;
    double* managed;
    double* dev_x;
    double* dev_y;
    CC(cudaMallocHost(&pinned, bytes));
    CC(cudaMallocManaged(&managed, bytes));
    CC(cudaMalloc(&dev_x, bytes));
    CC(cudaMalloc(&dev_y, bytes));

    for (int i = 0; i < n; ++i) pinned[i] = 1.0 + i % 3;
    CC(cudaMemcpy(dev_x, pinned, bytes, cudaMemcpyDefault));
    CC(cudaMemcpy(dev_y, pinned, bytes, cudaMemcpyHostToDevice));

    axpby<<<(n + 255) / 256, 256>>>(dev_x, dev_y, 2.0, -1.0, n);
    CC(cudaGetLastError());

    CC(cudaMemcpy(managed, dev_y, bytes, cudaMemcpyDeviceToDevice));
    CC(cudaMemcpy(pinned, managed, bytes, cudaMemcpyDefault));
    CC(cudaDeviceSynchronize());

    double s = 0;
    for (int i = 0; i < n; ++i) s += pinned[i] - managed[i];
    printf("difference between staged copies: %g\n", s);

    CC(cudaFree(dev_y));
    CC(cudaFree(dev_x));
    CC(cudaFree(managed));
    CC(cudaFreeHost(pinned));
    return 0;
}
