// case: a vector-add benchmark with std::vector host data and cudaMalloc device data; every copy has the right argument order and kind.
// expect: none
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void vecAdd(const double* a, const double* b, double* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main() {
    const int n = 1 << 21;
    const size_t bytes = n * sizeof(double);
    std::vector<double> h_a(n), h_b(n), h_c(n);
    for (int i = 0; i < n; ++i) { h_a[i] = i; h_b[i] = n - i; }

    double *d_a, *d_b, *d_c;
    cudaMalloc(&d_a, bytes);
    cudaMalloc(&d_b, bytes);
    cudaMalloc(&d_c, bytes);

    cudaMemcpy(d_a, h_a.data(), bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, h_b.data(), bytes, cudaMemcpyHostToDevice);
    vecAdd<<<(n + 255) / 256, 256>>>(d_a, d_b, d_c, n);
    cudaMemcpy(h_c.data(), d_c, bytes, cudaMemcpyDeviceToHost);

    int bad = 0;
    for (int i = 0; i < n; ++i) bad += (h_c[i] != (double)n);
    printf("%s (%d mismatches)\n", bad ? "FAIL" : "PASS", bad);

    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    return 0;
}
