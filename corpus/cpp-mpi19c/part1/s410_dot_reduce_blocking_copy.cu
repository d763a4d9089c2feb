// case: Global dot product near miss: the reduction kernels run on the legacy default stream and a blocking cudaMemcpy brings the local sum back to pinned h_local before MPI_Reduce reads it.
// expect: none
#include <cuda_runtime.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(call)                                                         \
  do {                                                                           \
    cudaError_t e = (call);                                                      \
    if (e != cudaSuccess) {                                                      \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e));  \
      abort();                                                                   \
    }                                                                            \
  } while (0)
#define CHECK_MPI(call)                                                          \
  do {                                                                           \
    int e = (call);                                                              \
    if (e != MPI_SUCCESS) {                                                      \
      fprintf(stderr, "%s:%d MPI error %d\n", __FILE__, __LINE__, e);            \
      abort();                                                                   \
    }                                                                            \
  } while (0)

constexpr int THREADS = 256;

__global__ void fill_vectors(double* x, double* y, int n, long long offset) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double t = 1e-3 * (double)(offset + i);
  x[i] = sin(t);
  y[i] = cos(t);
}

// One partial sum per block, tree-reduced in shared memory.
__global__ void dot_partial(const double* x, const double* y, int n, double* partial) {
  __shared__ double cache[THREADS];
  int tid = threadIdx.x;
  double acc = 0.0;
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) acc += x[i] * y[i];
  cache[tid] = acc;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) cache[tid] += cache[tid + stride];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = cache[0];
}

// A single block folds the partial sums.
__global__ void sum_partials(const double* partial, int nparts, double* out) {
  __shared__ double cache[THREADS];
  int tid = threadIdx.x;
  double acc = 0.0;
  for (int i = tid; i < nparts; i += blockDim.x) acc += partial[i];
  cache[tid] = acc;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) cache[tid] += cache[tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[0] = cache[0];
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = 0, nranks = 1;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
  int ndev = 0;
  CHECK_CUDA(cudaGetDeviceCount(&ndev));
  CHECK_CUDA(cudaSetDevice(rank % ndev));

  const int n = 1 << 24;
  const int nblocks = 1024;
  const int reps = 20;

  double *d_x, *d_y, *d_partial, *d_local;
  CHECK_CUDA(cudaMalloc(&d_x, (size_t)n * sizeof(double)));
  CHECK_CUDA(cudaMalloc(&d_y, (size_t)n * sizeof(double)));
  CHECK_CUDA(cudaMalloc(&d_partial, nblocks * sizeof(double)));
  CHECK_CUDA(cudaMalloc(&d_local, sizeof(double)));
  double *h_local, *h_global;
  CHECK_CUDA(cudaMallocHost(&h_local, sizeof(double)));
  CHECK_CUDA(cudaMallocHost(&h_global, sizeof(double)));
  *h_global = 0.0;

  fill_vectors<<<(n + THREADS - 1) / THREADS, THREADS>>>(d_x, d_y, n, (long long)rank * n);

  double elapsed = 0.0;
  for (int r = 0; r < reps; ++r) {
    const double t0 = MPI_Wtime();
    dot_partial<<<nblocks, THREADS>>>(d_x, d_y, n, d_partial);
    sum_partials<<<1, THREADS>>>(d_partial, nblocks, d_local);
    // Blocking copy on the legacy stream: returns after both kernels and the copy.
    CHECK_CUDA(cudaMemcpy(h_local, d_local, sizeof(double), cudaMemcpyDeviceToHost));
    CHECK_MPI(MPI_Reduce(h_local, h_global, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
    elapsed += MPI_Wtime() - t0;
  }
  if (rank == 0) {
    // sum of sin(t) cos(t) = sum of sin(2t) / 2 over t = 1e-3 * i
    printf("dot = %.10e over %d ranks, %.3f ms per global dot product\n", *h_global, nranks,
           1e3 * elapsed / reps);
  }

  CHECK_CUDA(cudaFree(d_x));
  CHECK_CUDA(cudaFree(d_y));
  CHECK_CUDA(cudaFree(d_partial));
  CHECK_CUDA(cudaFree(d_local));
  CHECK_CUDA(cudaFreeHost(h_local));
  CHECK_CUDA(cudaFreeHost(h_global));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
