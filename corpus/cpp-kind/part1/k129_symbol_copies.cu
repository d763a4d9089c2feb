// case: a convolution stores its filter in __constant__ memory and a device counter in a __device__ variable, using cudaMemcpyToSymbol / cudaMemcpyFromSymbol (including a DeviceToDevice symbol copy from cudaMalloc memory), all correctly.
// expect: none
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define KW 9
__constant__ float c_filter[KW];
__device__ unsigned int g_clipped;

__global__ void conv1d(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < KW / 2 || i >= n - KW / 2) return;
    float acc = 0.f;
    for (int k = 0; k < KW; ++k) acc += c_filter[k] * in[i + k - KW / 2];
    if (acc > 1.f) { acc = 1.f; atomicAdd(&g_clipped, 1u); }
    out[i] = acc;
}

int main() {
    const int n = 1 << 20;
    float filter[KW];
    for (int k = 0; k < KW; ++k) filter[k] = 1.f / KW;
    std::vector<float> signal(n, 0.9f), result(n);

    float *d_in, *d_out, *d_altFilter;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMalloc(&d_altFilter, sizeof(filter));
    cudaMemcpy(d_in, signal.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_altFilter, filter, sizeof(filter), cudaMemcpyHostToDevice);

    unsigned int zero = 0;
    cudaMemcpyToSymbol(g_clipped, &zero, sizeof(zero));
    cudaMemcpyToSymbol(c_filter, filter, sizeof(filter));
    conv1d<<<(n + 255) / 256, 256>>>(d_in, d_out, n);

    // second pass with the filter already on the device
    cudaMemcpyToSymbol(c_filter, d_altFilter, sizeof(filter), 0, cudaMemcpyDeviceToDevice);
    conv1d<<<(n + 255) / 256, 256>>>(d_in, d_out, n);

    unsigned int clipped = 0;
    cudaMemcpyFromSymbol(&clipped, g_clipped, sizeof(clipped), 0, cudaMemcpyDeviceToHost);
    cudaMemcpy(result.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("clipped %u, out[1000] = %f\n", clipped, result[1000]);

    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_altFilter);
    return 0;
}
