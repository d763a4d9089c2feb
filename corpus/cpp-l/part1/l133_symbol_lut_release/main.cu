// case: a GELU-by-lookup-table layer keeps pointers to its input, output and LUT in one struct (header model_buffers.cuh); the LUT pointer is the address of a __device__ module global from cudaGetSymbolAddress, and the header's release function cudaFree's it along with the real allocations.
// expect: mismatched_free=1
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

#include "model_buffers.cuh"

__global__ void gelu_lut(const float* in, float* out, const float* lut, size_t n) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    float x = fminf(fmaxf(in[i], -kLutRange), kLutRange);
    float pos = (x + kLutRange) / (2.f * kLutRange) * float(kLutSize - 1);
    int j = min(int(pos), kLutSize - 2);
    float t = pos - float(j);
    out[i] = lut[j] * (1.f - t) + lut[j + 1] * t;
}

int main() {
    const size_t n = size_t(1) << 22;
    ModelBuffers b;
    model_buffers_init(b, n);

    std::vector<float> h(n);
    for (size_t i = 0; i < n; ++i) h[i] = float(int(i % 2001) - 1000) / 125.f;
    MB_CHECK(cudaMemcpy(b.d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    gelu_lut<<<unsigned((n + 255) / 256), 256>>>(b.d_in, b.d_out, b.d_lut, n);
    MB_CHECK(cudaGetLastError());
    MB_CHECK(cudaMemcpy(h.data(), b.d_out, n * sizeof(float), cudaMemcpyDeviceToHost));

    double acc = 0.0;
    for (size_t i = 0; i < n; ++i) acc += h[i];
    printf("mean gelu %.5f\n", acc / double(n));

    model_buffers_release(b);
    return 0;
}
