// case: CSR Laplacian SpMV whose row-pointer buffers (host new[] and device) are both sized ROWS+1 and copied with ROWS+1 entries: every copy fits
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e = (call);                                             \
        if (e != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            std::exit(1);                                                   \
        }                                                                   \
    } while (0)

constexpr int ROWS = 10000;
constexpr int NNZ = 3 * ROWS - 2;

__global__ void spmv(const int *rp, const int *ci, const double *v, const double *x, double *y, int rows)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        double s = 0.0;
        for (int k = rp[r]; k < rp[r + 1]; ++k) s += v[k] * x[ci[k]];
        y[r] = s;
    }
}

int main()
{
    int *rp = new int[ROWS + 1];
    int *ci = new int[NNZ];
    double *vals = new double[NNZ];
    double *x = new double[ROWS];
    double *y = new double[ROWS];

    int k = 0;
    for (int r = 0; r < ROWS; ++r) {
        rp[r] = k;
        if (r > 0) { ci[k] = r - 1; vals[k++] = -1.0; }
        ci[k] = r; vals[k++] = 2.0;
        if (r < ROWS - 1) { ci[k] = r + 1; vals[k++] = -1.0; }
        x[r] = 1.0;
    }
    rp[ROWS] = k;

    int *d_rp, *d_ci;
    double *d_v, *d_x, *d_y;
    CUDA_CHECK(cudaMalloc(&d_rp, (ROWS + 1) * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_ci, NNZ * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_v, NNZ * sizeof(double)));
    CUDA_CHECK(cudaMalloc(&d_x, ROWS * sizeof(double)));
    CUDA_CHECK(cudaMalloc(&d_y, ROWS * sizeof(double)));

    CUDA_CHECK(cudaMemcpy(d_rp, rp, (ROWS + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_ci, ci, NNZ * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_v, vals, NNZ * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_x, x, ROWS * sizeof(double), cudaMemcpyHostToDevice));

    spmv<<<(ROWS + 127) / 128, 128>>>(d_rp, d_ci, d_v, d_x, d_y, ROWS);
    CUDA_CHECK(cudaMemcpy(y, d_y, ROWS * sizeof(double), cudaMemcpyDeviceToHost));
    std::printf("y[0]=%g y[mid]=%g y[last]=%g\n", y[0], y[ROWS / 2], y[ROWS - 1]);

    CUDA_CHECK(cudaFree(d_rp)); CUDA_CHECK(cudaFree(d_ci)); CUDA_CHECK(cudaFree(d_v));
    CUDA_CHECK(cudaFree(d_x)); CUDA_CHECK(cudaFree(d_y));
    delete[] rp; delete[] ci; delete[] vals; delete[] x; delete[] y;
    return 0;
}
