// case: Block-Jacobi solver with a nonblocking residual reduction: MPI_Iallreduce writes the pinned h_global, and the progress report reads *h_global before MPI_Wait completes the request.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(x)                                                               \
  do {                                                                              \
    cudaError_t e_ = (x);                                                           \
    if (e_ != cudaSuccess) {                                                        \
      fprintf(stderr, "CUDA error '%s' at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      abort();                                                                      \
    }                                                                               \
  } while (0)
#define CHECK_MPI(x)                                                                \
  do {                                                                              \
    int e_ = (x);                                                                   \
    if (e_ != MPI_SUCCESS) {                                                        \
      fprintf(stderr, "MPI error %d at %s:%d\n", e_, __FILE__, __LINE__);           \
      MPI_Abort(MPI_COMM_WORLD, e_);                                                \
      abort();                                                                      \
    }                                                                               \
  } while (0)

constexpr int THREADS = 256;

// Each rank owns an independent tridiagonal block (4 on the diagonal, -1 beside it).
__global__ void init_rhs(double* b, int n, int rank) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = 1.0 + 0.5 * sin(0.01 * (double)(i + rank * 7919));
}

// x_new = (b + x_left + x_right) / 4; adds this block's sum of squared updates to *res2.
__global__ void jacobi_sweep(const double* x, const double* b, double* xn, int n, double* res2) {
  __shared__ double part[THREADS];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double d2 = 0.0;
  if (i < n) {
    double left = i > 0 ? x[i - 1] : 0.0;
    double right = i < n - 1 ? x[i + 1] : 0.0;
    double v = 0.25 * (b[i] + left + right);
    double d = v - x[i];
    xn[i] = v;
    d2 = d * d;
  }
  part[threadIdx.x] = d2;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if ((int)threadIdx.x < stride) part[threadIdx.x] += part[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(res2, part[0]);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = 0, nranks = 1;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
  int ndev = 0;
  CHECK_CUDA(cudaGetDeviceCount(&ndev));
  CHECK_CUDA(cudaSetDevice(rank % ndev));

  const int n = 1 << 20, max_iter = 5000, report_every = 250;
  const double tol = 1e-12;
  const int grid = (n + THREADS - 1) / THREADS;

  double *d_x, *d_xn, *d_b, *d_res2;
  CHECK_CUDA(cudaMalloc(&d_x, n * sizeof(double)));
  CHECK_CUDA(cudaMalloc(&d_xn, n * sizeof(double)));
  CHECK_CUDA(cudaMalloc(&d_b, n * sizeof(double)));
  CHECK_CUDA(cudaMalloc(&d_res2, sizeof(double)));
  double *h_local, *h_global, *h_x;
  CHECK_CUDA(cudaMallocHost(&h_local, sizeof(double)));
  CHECK_CUDA(cudaMallocHost(&h_global, sizeof(double)));
  CHECK_CUDA(cudaMallocHost(&h_x, n * sizeof(double)));

  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  CHECK_CUDA(cudaMemsetAsync(d_x, 0, n * sizeof(double), s));
  init_rhs<<<grid, THREADS, 0, s>>>(d_b, n, rank);

  MPI_Request req = MPI_REQUEST_NULL;
  int it = 0;
  for (it = 0; it < max_iter; ++it) {
    CHECK_CUDA(cudaMemsetAsync(d_res2, 0, sizeof(double), s));
    jacobi_sweep<<<grid, THREADS, 0, s>>>(d_x, d_b, d_xn, n, d_res2);
    CHECK_CUDA(cudaMemcpyAsync(h_local, d_res2, sizeof(double), cudaMemcpyDeviceToHost, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    CHECK_MPI(MPI_Iallreduce(h_local, h_global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req));

    double* t = d_x;  // the new iterate becomes the current one
    d_x = d_xn;
    d_xn = t;

    if (rank == 0 && it % report_every == 0)
      printf("iter %5d  |dx| = %.3e\n", it, std::sqrt(*h_global));  // EXPECT: missing_sync
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (*h_global < tol * tol) break;
  }

  // Largest component of the solution, over all ranks.
  CHECK_CUDA(cudaMemcpyAsync(h_x, d_x, n * sizeof(double), cudaMemcpyDeviceToHost, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  double local_max = 0.0, global_max = 0.0;
  for (int i = 0; i < n; ++i) local_max = std::fmax(local_max, std::fabs(h_x[i]));
  CHECK_MPI(MPI_Reduce(&local_max, &global_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
  if (rank == 0) printf("converged after %d sweeps, max |x| = %.6f\n", it, global_max);

  CHECK_CUDA(cudaFree(d_x));
  CHECK_CUDA(cudaFree(d_xn));
  CHECK_CUDA(cudaFree(d_b));
  CHECK_CUDA(cudaFree(d_res2));
  CHECK_CUDA(cudaFreeHost(h_local));
  CHECK_CUDA(cudaFreeHost(h_global));
  CHECK_CUDA(cudaFreeHost(h_x));
  CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
