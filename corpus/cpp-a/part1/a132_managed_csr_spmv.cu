// case: CSR sparse matrix-vector product; the matrix is built by the host in managed memory before any kernel runs, vectors are cudaMalloc'd and only offset on the host (pointer arithmetic, never dereferenced), and the managed result is read after cudaDeviceSynchronize (near-miss)
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "spmv: %s (%s:%d)\n", cudaGetErrorString(e_),       \
                   __FILE__, __LINE__);                                         \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

struct CsrMatrix {
  int rows = 0, cols = 0, nnz = 0;
  int* row_ptr = nullptr;  // managed
  int* col_idx = nullptr;  // managed
  double* vals = nullptr;  // managed
};

__global__ void spmv_csr(int rows, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                         const double* __restrict__ vals, const double* __restrict__ x, double* __restrict__ y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  double acc = 0.0;
  for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) acc += vals[k] * x[col_idx[k]];
  y[r] = acc;
}

__global__ void set_const(double* v, int n, double c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = c;
}

__global__ void residual_norm2(const double* __restrict__ y, int n, double target, double* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, (y[i] - target) * (y[i] - target));
}

// 2-D 5-point Laplacian on an m x m grid.
static CsrMatrix build_laplacian(int m) {
  CsrMatrix A;
  A.rows = A.cols = m * m;
  const int max_nnz = 5 * A.rows;
  CUDA_CHECK(cudaMallocManaged(&A.row_ptr, (A.rows + 1) * sizeof(int)));
  CUDA_CHECK(cudaMallocManaged(&A.col_idx, max_nnz * sizeof(int)));
  CUDA_CHECK(cudaMallocManaged(&A.vals, max_nnz * sizeof(double)));
  int k = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) {
      const int r = i * m + j;
      A.row_ptr[r] = k;
      if (i > 0) { A.col_idx[k] = r - m; A.vals[k++] = -1.0; }
      if (j > 0) { A.col_idx[k] = r - 1; A.vals[k++] = -1.0; }
      A.col_idx[k] = r; A.vals[k++] = 4.0;
      if (j + 1 < m) { A.col_idx[k] = r + 1; A.vals[k++] = -1.0; }
      if (i + 1 < m) { A.col_idx[k] = r + m; A.vals[k++] = -1.0; }
    }
  A.row_ptr[A.rows] = k;
  A.nnz = k;
  return A;
}

int main() {
  const int m = 1024;
  CsrMatrix A = build_laplacian(m);  // host writes finish before the first launch

  double* d_x = nullptr;
  double* d_y = nullptr;
  CUDA_CHECK(cudaMalloc(&d_x, A.cols * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&d_y, A.rows * sizeof(double)));
  double* err = nullptr;
  CUDA_CHECK(cudaMallocManaged(&err, sizeof(double)));
  *err = 0.0;

  const int threads = 256;
  set_const<<<(A.cols + threads - 1) / threads, threads>>>(d_x, A.cols, 1.0);
  spmv_csr<<<(A.rows + threads - 1) / threads, threads>>>(A.rows, A.row_ptr, A.col_idx, A.vals, d_x, d_y);

  // interior rows only: skip the first and last grid rows (device pointers offset, not read)
  const int interior_first = m;
  const int interior_rows = A.rows - 2 * m;
  double* d_y_interior = d_y + interior_first;
  if (d_y_interior != nullptr && interior_rows > 0)
    residual_norm2<<<(interior_rows + threads - 1) / threads, threads>>>(d_y_interior, interior_rows, 0.0, err);

  CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("nnz %d, interior residual^2 %.3e, row_ptr[last] %d\n", A.nnz, *err, A.row_ptr[A.rows]);

  cudaFree(err);
  cudaFree(d_y);
  cudaFree(d_x);
  cudaFree(A.vals);
  cudaFree(A.col_idx);
  cudaFree(A.row_ptr);
  return 0;
}
