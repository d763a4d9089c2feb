// case: a 2D heat-equation stencil keeps its two grids in a Workspace that workspace_destroy frees, but the per-step residual buffer allocated in main is never freed
// expect: device_memory_leak=1
#include <cmath>
#include <vector>
#include "workspace.h"

#define STEPS 1000
#define ALPHA 0.2f

__global__ void heat_step(const float* u, float* v, float* residual, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x <= 0 || y <= 0 || x >= nx - 1 || y >= ny - 1) return;
    int i = y * nx + x;
    float lap = u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] - 4.f * u[i];
    v[i] = u[i] + ALPHA * lap;
    residual[i] = fabsf(ALPHA * lap);
}

int main() {
    std::vector<float> h(NX * NY, 0.f);
    for (int y = NY / 4; y < 3 * NY / 4; ++y)
        for (int x = NX / 4; x < 3 * NX / 4; ++x) h[y * NX + x] = 100.f;

    Workspace ws;
    workspace_init(&ws, h.data());

    float* d_residual = nullptr;
    CUDA_CHECK(cudaMalloc(&d_residual, sizeof(float) * NX * NY)); // EXPECT: device_memory_leak
    CUDA_CHECK(cudaMemset(d_residual, 0, sizeof(float) * NX * NY));

    dim3 block(16, 16), grid(NX / 16, NY / 16);
    for (int s = 0; s < STEPS; s += 2) {
        heat_step<<<grid, block>>>(ws.d_u, ws.d_v, d_residual, NX, NY);
        heat_step<<<grid, block>>>(ws.d_v, ws.d_u, d_residual, NX, NY);
    }
    CUDA_CHECK(cudaGetLastError());

    std::vector<float> res(NX * NY);
    CUDA_CHECK(cudaMemcpy(res.data(), d_residual, sizeof(float) * NX * NY, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h.data(), ws.d_u, sizeof(float) * NX * NY, cudaMemcpyDeviceToHost));
    float max_res = 0.f;
    for (float r : res) max_res = fmaxf(max_res, r);
    printf("center temperature %.3f, max update %.3e\n", h[(NY / 2) * NX + NX / 2], max_res);

    workspace_destroy(&ws);
    return 0;
}
