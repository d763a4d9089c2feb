// case: an existing std::vector is page-locked with cudaHostRegister before chunked async uploads and downloads on two streams, synchronized and unregistered before the vector is read and destroyed: pinned, ordered and released by the matching call
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void clamp01(float* v, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) v[i] = fminf(fmaxf(v[i], 0.f), 1.f);
}

int main() {
    const size_t n = size_t(1) << 25;
    const size_t half = n / 2;
    std::vector<float> samples(n);
    for (size_t i = 0; i < n; ++i) samples[i] = (float)((long)(i % 300) - 100) / 100.f;

    CK(cudaHostRegister(samples.data(), n * sizeof(float), cudaHostRegisterDefault));

    float *d_lo, *d_hi;
    CK(cudaMalloc(&d_lo, half * sizeof(float)));
    CK(cudaMalloc(&d_hi, (n - half) * sizeof(float)));
    cudaStream_t s0, s1;
    CK(cudaStreamCreate(&s0));
    CK(cudaStreamCreate(&s1));

    CK(cudaMemcpyAsync(d_lo, samples.data(), half * sizeof(float), cudaMemcpyHostToDevice, s0));
    CK(cudaMemcpyAsync(d_hi, samples.data() + half, (n - half) * sizeof(float), cudaMemcpyHostToDevice, s1));
    clamp01<<<(half + 255) / 256, 256, 0, s0>>>(d_lo, half);
    clamp01<<<(n - half + 255) / 256, 256, 0, s1>>>(d_hi, n - half);
    CK(cudaMemcpyAsync(samples.data(), d_lo, half * sizeof(float), cudaMemcpyDeviceToHost, s0));
    CK(cudaMemcpyAsync(samples.data() + half, d_hi, (n - half) * sizeof(float), cudaMemcpyDeviceToHost, s1));

    CK(cudaStreamSynchronize(s0));
    CK(cudaStreamSynchronize(s1));
    CK(cudaHostUnregister(samples.data()));

    size_t clipped = 0;
    for (size_t i = 0; i < n; ++i) clipped += (samples[i] == 0.f || samples[i] == 1.f);
    printf("%zu samples at a bound\n", clipped);

    CK(cudaStreamDestroy(s1));
    CK(cudaStreamDestroy(s0));
    CK(cudaFree(d_hi));
    CK(cudaFree(d_lo));
    return 0;
}
