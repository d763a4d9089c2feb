// case: simulation parameters live in cudaMallocManaged memory filled by the host before the kernel reads them (managed memory is out of scope), the device output is copied back.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s\n", cudaGetErrorString(e)); std::exit(1); } } while (0)

struct SimParams {
    float gravity;
    float damping;
    float dt;
    int   n;
};

__global__ void drop_heights(const SimParams* p, float* height, int steps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p->n) return;
    float h = 10.0f + i * 0.001f, v = 0.0f;
    for (int s = 0; s < steps; ++s) {
        v = (v - p->gravity * p->dt) * p->damping;
        h = fmaxf(h + v * p->dt, 0.0f);
    }
    height[i] = h;
}

int main()
{
    const int n = 100000;
    SimParams* params;
    CUDA_CHECK(cudaMallocManaged(&params, sizeof(SimParams)));
    params->gravity = 9.81f;
    params->damping = 0.999f;
    params->dt = 1e-3f;
    params->n = n;

    float* d_height;
    CUDA_CHECK(cudaMalloc(&d_height, n * sizeof(float)));
    drop_heights<<<(n + 255) / 256, 256>>>(params, d_height, 1000);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    std::vector<float> h(n);
    CUDA_CHECK(cudaMemcpy(h.data(), d_height, n * sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("height[0] after 1s: %f\n", h[0]);

    CUDA_CHECK(cudaFree(d_height));
    CUDA_CHECK(cudaFree(params));
    return 0;
}
