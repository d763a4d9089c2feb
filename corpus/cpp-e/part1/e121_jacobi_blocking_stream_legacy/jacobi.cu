// case: A 2D Jacobi Poisson solver runs its sweeps on a stream made by cudaStreamCreate (blocking, header) and checks the residual with a plain cudaMemcpy on the legacy default stream, which waits for that blocking stream's earlier kernels; correct in the default (legacy default stream) build.
// expect: none
#include "solver_stream.h"
#include <cmath>
#include <utility>
#include <vector>

constexpr int kN = 1024;
constexpr int kCheckEvery = 50;

__global__ void jacobi_sweep(const float* u, float* u_new, const float* f, int n, float h2, float* residual)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x + 1;
    int y = blockIdx.y * blockDim.y + threadIdx.y + 1;
    if (x >= n - 1 || y >= n - 1) return;
    int i = y * n + x;
    float v = 0.25f * (u[i - 1] + u[i + 1] + u[i - n] + u[i + n] - h2 * f[i]);
    u_new[i] = v;
    atomicAdd(residual, fabsf(v - u[i]));
}

int main()
{
    SolverStream stream;
    DeviceArray<float> u(kN * kN), u_new(kN * kN), f(kN * kN), residual(1);

    std::vector<float> h_f(kN * kN, 1.0f);
    CUDA_CHECK(cudaMemsetAsync(u.ptr, 0, u.bytes(), stream));
    CUDA_CHECK(cudaMemsetAsync(u_new.ptr, 0, u_new.bytes(), stream));
    CUDA_CHECK(cudaMemcpy(f.ptr, h_f.data(), f.bytes(), cudaMemcpyHostToDevice)); // legacy stream; sweeps below wait for it

    float* cur = u.ptr;
    float* nxt = u_new.ptr;
    const float h2 = 1.0f / ((kN - 1) * (kN - 1));
    dim3 block(32, 8), grid((kN - 2 + 31) / 32, (kN - 2 + 7) / 8);

    float res = 0.f;
    int it = 0;
    for (; it < 5000; ++it) {
        CUDA_CHECK(cudaMemsetAsync(residual.ptr, 0, sizeof(float), stream));
        jacobi_sweep<<<grid, block, 0, stream>>>(cur, nxt, f.ptr, kN, h2, residual.ptr);
        CUDA_CHECK(cudaGetLastError());
        std::swap(cur, nxt);
        if (it % kCheckEvery == 0) {
            CUDA_CHECK(cudaMemcpy(&res, residual.ptr, sizeof(float), cudaMemcpyDeviceToHost));
            if (res < 1e-3f) break;
        }
    }
    std::printf("stopped after %d sweeps, residual %g\n", it, res);

    std::vector<float> solution(kN * kN);
    CUDA_CHECK(cudaMemcpy(solution.data(), cur, solution.size() * sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("u(center) = %g\n", solution[(kN / 2) * kN + kN / 2]);
    return 0;
}
