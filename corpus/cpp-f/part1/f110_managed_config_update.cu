// case: a Jacobi solver keeps its run configuration in a cudaMallocManaged struct that no kernel uses, and writes the iteration counter into it while the sweep kernel of that iteration is still running.
// expect: managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cstdio>
#include <utility>

#define CUDA_CHECK(call) do { cudaError_t rc = (call); if (rc != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(rc)); exit(1); } } while (0)

struct SolverConfig {
    int    max_iters;
    int    iteration;
    float  omega;
    float  tolerance;
    double last_wall_ms;
};

__global__ void jacobi_sweep(const float* __restrict__ u, float* __restrict__ u_new,
                             const float* __restrict__ f, int n, float omega) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || j < 1 || i >= n - 1 || j >= n - 1) return;
    int k = j * n + i;
    float gs = 0.25f * (u[k - 1] + u[k + 1] + u[k - n] + u[k + n] - f[k]);
    u_new[k] = (1.f - omega) * u[k] + omega * gs;
}

int main() {
    const int n = 4096;
    const size_t bytes = (size_t)n * n * sizeof(float);

    SolverConfig* cfg = nullptr;
    CUDA_CHECK(cudaMallocManaged(&cfg, sizeof(SolverConfig)));
    cfg->max_iters = 200;
    cfg->iteration = 0;
    cfg->omega = 0.8f;
    cfg->tolerance = 1e-6f;
    cfg->last_wall_ms = 0.0;

    float *d_u, *d_unew, *d_f;
    CUDA_CHECK(cudaMalloc(&d_u, bytes));
    CUDA_CHECK(cudaMalloc(&d_unew, bytes));
    CUDA_CHECK(cudaMalloc(&d_f, bytes));
    CUDA_CHECK(cudaMemset(d_u, 0, bytes));
    CUDA_CHECK(cudaMemset(d_unew, 0, bytes));
    CUDA_CHECK(cudaMemset(d_f, 0, bytes));

    cudaEvent_t t0, t1;
    CUDA_CHECK(cudaEventCreate(&t0));
    CUDA_CHECK(cudaEventCreate(&t1));

    dim3 block(32, 8), grid(n / 32, n / 8);
    const int iters = cfg->max_iters;
    const float omega = cfg->omega;
    for (int it = 0; it < iters; ++it) {
        CUDA_CHECK(cudaEventRecord(t0));
        jacobi_sweep<<<grid, block>>>(d_u, d_unew, d_f, n, omega);
        CUDA_CHECK(cudaEventRecord(t1));
        cfg->iteration = it + 1;                  // kernel may still be running
        CUDA_CHECK(cudaEventSynchronize(t1));
        float ms = 0.f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
        cfg->last_wall_ms = ms;
        std::swap(d_u, d_unew);
    }
    printf("ran %d sweeps, last %.3f ms\n", cfg->iteration, cfg->last_wall_ms);

    CUDA_CHECK(cudaEventDestroy(t1));
    CUDA_CHECK(cudaEventDestroy(t0));
    cudaFree(d_f); cudaFree(d_unew); cudaFree(d_u);
    cudaFree(cfg);
    return 0;
}
