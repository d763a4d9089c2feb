// case: CSR SpMV whose column and value arrays are allocated for a maximum non-zero capacity and only the used prefix is uploaded before the kernel reads them
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define NROWS 100000
#define NNZ_PER_ROW 5
#define NNZ (NROWS * NNZ_PER_ROW)
#define MAX_NNZ (NROWS * 8)
#define BLOCK 256

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

__global__ void spmv_csr(const int *rowptr, const int *cols, const double *vals, const double *x,
                         double *y, int nrows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  double acc = 0.0;
  for (int k = rowptr[r]; k < rowptr[r + 1]; ++k) acc += vals[k] * x[cols[k]];
  y[r] = acc;
}

int main() {
  std::vector<int> h_rowptr(NROWS + 1), h_cols(NNZ);
  std::vector<double> h_vals(NNZ), h_x(NROWS, 1.0), h_y(NROWS);
  for (int r = 0; r < NROWS; ++r) {
    h_rowptr[r] = r * NNZ_PER_ROW;
    for (int k = 0; k < NNZ_PER_ROW; ++k) {
      h_cols[r * NNZ_PER_ROW + k] = (r + k * 997) % NROWS;
      h_vals[r * NNZ_PER_ROW + k] = (k == 0) ? 4.0 : -0.5;
    }
  }
  h_rowptr[NROWS] = NNZ;

  int *d_rowptr, *d_cols;
  double *d_vals, *d_x, *d_y;
  CUDA_CHECK(cudaMalloc(&d_rowptr, (NROWS + 1) * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_cols, MAX_NNZ * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_vals, MAX_NNZ * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&d_x, NROWS * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&d_y, NROWS * sizeof(double)));

  CUDA_CHECK(cudaMemcpy(d_rowptr, h_rowptr.data(), (NROWS + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_cols, h_cols.data(), NNZ * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_vals, h_vals.data(), NNZ * sizeof(double), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_x, h_x.data(), NROWS * sizeof(double), cudaMemcpyHostToDevice));

  spmv_csr<<<(NROWS + BLOCK - 1) / BLOCK, BLOCK>>>(d_rowptr, d_cols, d_vals, d_x, d_y, NROWS);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(h_y.data(), d_y, NROWS * sizeof(double), cudaMemcpyDeviceToHost));

  double sum = 0.0;
  for (double v : h_y) sum += v;
  printf("sum(Ax) = %.1f (nnz %d of capacity %d)\n", sum, NNZ, MAX_NNZ);

  CUDA_CHECK(cudaFree(d_rowptr));
  CUDA_CHECK(cudaFree(d_cols));
  CUDA_CHECK(cudaFree(d_vals));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_y));
  return 0;
}
