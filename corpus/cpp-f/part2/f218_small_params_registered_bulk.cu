// case: A shallow-water solver sends its parameter struct and a 4 KiB lookup table with cudaMemcpyAsync from the stack (both under the 64 KiB threshold) and the 32 MiB height field from a std::vector page-locked with cudaHostRegister, synchronizing before it unregisters or reads the vector.
// expect: none
#include <cuda_runtime.h>
#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

#define SW_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "shallow-water: %s (%s)\n", cudaGetErrorString(e), #x); return 1; } } while (0)

struct SwParams {
    int nx, ny;
    float dx, dt, g;
    float friction[16];
};

__global__ void sw_update(float* h, const float* __restrict__ lut, const SwParams* p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y;
    if (i <= 0 || i >= p->nx - 1 || j <= 0 || j >= p->ny - 1) return;
    int k = j * p->nx + i;
    float lap = h[k - 1] + h[k + 1] + h[k - p->nx] + h[k + p->nx] - 4.f * h[k];
    int bucket = min(int(fabsf(h[k]) * 64.f), 1023);
    h[k] += p->dt * p->g * lap / (p->dx * p->dx) * lut[bucket] - p->friction[j % 16] * p->dt * h[k];
}

int main() {
    SwParams params;
    params.nx = 2048;
    params.ny = 4096;
    params.dx = 10.f;
    params.dt = 0.05f;
    params.g = 9.81f;
    for (int i = 0; i < 16; ++i) params.friction[i] = 1e-4f * (1 + i % 4);

    std::array<float, 1024> damping;
    for (int b = 0; b < 1024; ++b) damping[b] = 1.f / (1.f + 0.001f * b);

    const size_t cells = size_t(params.nx) * params.ny;
    std::vector<float> height(cells);
    for (size_t k = 0; k < cells; ++k) height[k] = std::exp(-1e-6f * float((k % params.nx) * (k % params.nx)));

    cudaStream_t s;
    SW_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    SwParams* d_params;
    float *d_lut, *d_h;
    SW_CHECK(cudaMalloc(&d_params, sizeof(SwParams)));
    SW_CHECK(cudaMalloc(&d_lut, sizeof(damping)));
    SW_CHECK(cudaMalloc(&d_h, cells * sizeof(float)));

    SW_CHECK(cudaHostRegister(height.data(), cells * sizeof(float), cudaHostRegisterDefault));

    SW_CHECK(cudaMemcpyAsync(d_params, &params, sizeof(params), cudaMemcpyHostToDevice, s));
    SW_CHECK(cudaMemcpyAsync(d_lut, damping.data(), damping.size() * sizeof(float), cudaMemcpyHostToDevice, s));
    SW_CHECK(cudaMemcpyAsync(d_h, height.data(), cells * sizeof(float), cudaMemcpyHostToDevice, s));

    dim3 grid((params.nx + 255) / 256, params.ny);
    for (int step = 0; step < 200; ++step) sw_update<<<grid, 256, 0, s>>>(d_h, d_lut, d_params);

    SW_CHECK(cudaMemcpyAsync(height.data(), d_h, cells * sizeof(float), cudaMemcpyDeviceToHost, s));
    SW_CHECK(cudaStreamSynchronize(s));
    SW_CHECK(cudaHostUnregister(height.data()));

    double mass = 0.0;
    for (float v : height) mass += v;
    printf("total water mass %.4f\n", mass * params.dx * params.dx);

    cudaFree(d_params);
    cudaFree(d_lut);
    cudaFree(d_h);
    cudaStreamDestroy(s);
    return 0;
}
