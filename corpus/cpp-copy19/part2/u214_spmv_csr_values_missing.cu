// case: CSR sparse matrix-vector product for a 1D Laplacian where upload_csr() copies row pointers and column indices but not the values, so the SpMV kernel reads d_vals uninitialized.
// expect: uninitialized_device_read=1
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK_CUDA(func) do { cudaError_t status = (func); if (status != cudaSuccess) { \
    printf("CUDA API failed at line %d with error: %s (%d)\n", __LINE__, cudaGetErrorString(status), status); \
    exit(EXIT_FAILURE); } } while (0)

#define NROWS 100000
#define NNZ (3 * NROWS - 2)

typedef struct {
    int* row_ptr;
    int* col_idx;
    double* vals;
} CsrMatrix;

__global__ void spmv_csr(const int* row_ptr, const int* col_idx, const double* vals,
                         const double* x, double* y, int nrows)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < nrows) {
        double dot = 0.0;
        for (int j = row_ptr[row]; j < row_ptr[row + 1]; ++j)
            dot += vals[j] * x[col_idx[j]];
        y[row] = dot;
    }
}

static void build_laplacian(CsrMatrix* h)
{
    int k = 0;
    for (int r = 0; r < NROWS; ++r) {
        h->row_ptr[r] = k;
        if (r > 0) { h->col_idx[k] = r - 1; h->vals[k++] = -1.0; }
        h->col_idx[k] = r; h->vals[k++] = 2.0;
        if (r < NROWS - 1) { h->col_idx[k] = r + 1; h->vals[k++] = -1.0; }
    }
    h->row_ptr[NROWS] = k;
}

static void upload_csr(CsrMatrix* d, const CsrMatrix* h)
{
    CHECK_CUDA(cudaMemcpy(d->row_ptr, h->row_ptr, (NROWS + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d->col_idx, h->col_idx, NNZ * sizeof(int), cudaMemcpyHostToDevice));
}

int main(void)
{
    CsrMatrix h, d;
    h.row_ptr = (int*)malloc((NROWS + 1) * sizeof(int));
    h.col_idx = (int*)malloc(NNZ * sizeof(int));
    h.vals = (double*)malloc(NNZ * sizeof(double));
    build_laplacian(&h);

    double* hx = (double*)malloc(NROWS * sizeof(double));
    double* hy = (double*)malloc(NROWS * sizeof(double));
    for (int i = 0; i < NROWS; ++i) hx[i] = 1.0;

    double *dx, *dy;
    CHECK_CUDA(cudaMalloc((void**)&d.row_ptr, (NROWS + 1) * sizeof(int)));
    CHECK_CUDA(cudaMalloc((void**)&d.col_idx, NNZ * sizeof(int)));
    CHECK_CUDA(cudaMalloc((void**)&d.vals, NNZ * sizeof(double)));
    CHECK_CUDA(cudaMalloc((void**)&dx, NROWS * sizeof(double)));
    CHECK_CUDA(cudaMalloc((void**)&dy, NROWS * sizeof(double)));

    upload_csr(&d, &h);
    CHECK_CUDA(cudaMemcpy(dx, hx, NROWS * sizeof(double), cudaMemcpyHostToDevice));

    spmv_csr<<<(NROWS + 255) / 256, 256>>>(d.row_ptr, d.col_idx, d.vals, dx, dy, NROWS); // EXPECT: uninitialized_device_read
    CHECK_CUDA(cudaMemcpy(hy, dy, NROWS * sizeof(double), cudaMemcpyDeviceToHost));
    printf("y[0]=%g y[mid]=%g y[last]=%g\n", hy[0], hy[NROWS / 2], hy[NROWS - 1]);

    CHECK_CUDA(cudaFree(d.row_ptr));
    CHECK_CUDA(cudaFree(d.col_idx));
    CHECK_CUDA(cudaFree(d.vals));
    CHECK_CUDA(cudaFree(dx));
    CHECK_CUDA(cudaFree(dy));
    free(h.row_ptr); free(h.col_idx); free(h.vals);
    free(hx); free(hy);
    return 0;
}
