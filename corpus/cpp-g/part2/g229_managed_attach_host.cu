// case: a sparse solver allocates its managed config with cudaMemAttachHost and edits it while an unrelated kernel runs, then attaches it to one stream with cudaMemAttachSingle, synchronizes, uses it there, and reads it back while only another stream's kernel runs: all allowed even without concurrent managed access.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <stdexcept>

#define SP_CHECK(x)                                                                \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) throw std::runtime_error(cudaGetErrorString(e_));   \
    } while (0)

struct SolverConfig {
    int max_iters;
    float tolerance;
    float omega;
    int converged_at;
};

__global__ void spmv_warmup(const int* row_ptr, const int* cols, const float* vals, const float* x,
                            float* y, int rows) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.f;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) acc += vals[k] * x[cols[k]];
    y[r] = acc;
}

__global__ void sor_sweeps(SolverConfig* cfg, float* x, const float* b, int rows) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows)
        for (int it = 0; it < cfg->max_iters; ++it) x[r] = (1.f - cfg->omega) * x[r] + cfg->omega * b[r];
    if (r == 0) cfg->converged_at = cfg->max_iters;
}

int main() {
    const int rows = 1 << 20, nnz = rows * 5;
    cudaStream_t solve_stream, aux_stream;
    SP_CHECK(cudaStreamCreateWithFlags(&solve_stream, cudaStreamNonBlocking));
    SP_CHECK(cudaStreamCreateWithFlags(&aux_stream, cudaStreamNonBlocking));

    int *d_rowptr, *d_cols;
    float *d_vals, *d_x, *d_y, *d_b, *d_sol;
    SP_CHECK(cudaMalloc(&d_rowptr, (rows + 1) * sizeof(int)));
    SP_CHECK(cudaMalloc(&d_cols, nnz * sizeof(int)));
    SP_CHECK(cudaMalloc(&d_vals, nnz * sizeof(float)));
    SP_CHECK(cudaMalloc(&d_x, rows * sizeof(float)));
    SP_CHECK(cudaMalloc(&d_y, rows * sizeof(float)));
    SP_CHECK(cudaMalloc(&d_b, rows * sizeof(float)));
    SP_CHECK(cudaMalloc(&d_sol, rows * sizeof(float)));
    SP_CHECK(cudaMemsetAsync(d_rowptr, 0, (rows + 1) * sizeof(int), aux_stream));
    SP_CHECK(cudaMemsetAsync(d_x, 0, rows * sizeof(float), aux_stream));
    SP_CHECK(cudaMemsetAsync(d_b, 0, rows * sizeof(float), solve_stream));
    SP_CHECK(cudaMemsetAsync(d_sol, 0, rows * sizeof(float), solve_stream));

    SolverConfig* cfg = nullptr;
    SP_CHECK(cudaMallocManaged(&cfg, sizeof(SolverConfig), cudaMemAttachHost));

    spmv_warmup<<<(rows + 255) / 256, 256, 0, aux_stream>>>(d_rowptr, d_cols, d_vals, d_x, d_y, rows);
    cfg->max_iters = 200;      // host-attached: not visible to the running kernel, host may touch it
    cfg->tolerance = 1e-6f;
    cfg->omega = 1.2f;
    cfg->converged_at = -1;

    SP_CHECK(cudaStreamAttachMemAsync(solve_stream, cfg, 0, cudaMemAttachSingle));
    SP_CHECK(cudaStreamSynchronize(solve_stream));
    sor_sweeps<<<(rows + 255) / 256, 256, 0, solve_stream>>>(cfg, d_sol, d_b, rows);
    SP_CHECK(cudaStreamSynchronize(solve_stream));

    spmv_warmup<<<(rows + 255) / 256, 256, 0, aux_stream>>>(d_rowptr, d_cols, d_vals, d_x, d_y, rows);
    std::printf("converged after %d iterations (omega %.2f)\n", cfg->converged_at, cfg->omega);

    SP_CHECK(cudaDeviceSynchronize());
    cudaFree(cfg);
    cudaFree(d_rowptr); cudaFree(d_cols); cudaFree(d_vals);
    cudaFree(d_x); cudaFree(d_y); cudaFree(d_b); cudaFree(d_sol);
    cudaStreamDestroy(solve_stream);
    cudaStreamDestroy(aux_stream);
    return 0;
}
