// case: Double-buffered sample stream near miss: before the generator kernel refills d_batch[step % 2], MPI_Wait completes the MPI_Isend that was started from that buffer two steps earlier.
// expect: none
#include <cuda_runtime.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(x)                                                                 \
  do {                                                                                \
    cudaError_t e_ = (x);                                                             \
    if (e_ != cudaSuccess) {                                                          \
      fprintf(stderr, "cuda: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      abort();                                                                        \
    }                                                                                 \
  } while (0)
#define CHECK_MPI(x)                                                                  \
  do {                                                                                \
    int e_ = (x);                                                                     \
    if (e_ != MPI_SUCCESS) {                                                          \
      fprintf(stderr, "mpi: error %d (%s:%d)\n", e_, __FILE__, __LINE__);             \
      MPI_Abort(MPI_COMM_WORLD, e_);                                                  \
      abort();                                                                        \
    }                                                                                 \
  } while (0)

constexpr int NBINS = 64;

__device__ unsigned hash32(unsigned x) {
  x ^= x >> 16; x *= 0x7feb352du;
  x ^= x >> 15; x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// A batch of uniform samples in [0, 1), different for every rank and step.
__global__ void generate(float* batch, int n, int rank, int step) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned h = hash32((unsigned)i * 2654435761u ^ hash32((unsigned)rank * 40503u + (unsigned)step));
  batch[i] = (h >> 8) * (1.0f / 16777216.0f);
}

__global__ void accumulate(const float* in, int n, unsigned* hist) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int b = (int)(in[i] * NBINS);
  atomicAdd(&hist[b < NBINS ? b : NBINS - 1], 1u);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = 0, nranks = 1;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
  int ndev = 0;
  CHECK_CUDA(cudaGetDeviceCount(&ndev));
  CHECK_CUDA(cudaSetDevice(rank % ndev));

  const int n = 1 << 20, nsteps = 64;
  const int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
  const int grid = (n + 255) / 256;

  float* d_batch[2];
  for (int p = 0; p < 2; ++p) CHECK_CUDA(cudaMalloc(&d_batch[p], n * sizeof(float)));
  float* d_in;
  unsigned* d_hist;
  CHECK_CUDA(cudaMalloc(&d_in, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_hist, NBINS * sizeof(unsigned)));
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  CHECK_CUDA(cudaMemsetAsync(d_hist, 0, NBINS * sizeof(unsigned), s));

  MPI_Request sreq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  for (int step = 0; step < nsteps; ++step) {
    const int p = step % 2;
    CHECK_MPI(MPI_Wait(&sreq[p], MPI_STATUS_IGNORE));  // the send of step - 2 used this buffer
    generate<<<grid, 256, 0, s>>>(d_batch[p], n, rank, step);
    CHECK_CUDA(cudaStreamSynchronize(s));
    CHECK_MPI(MPI_Isend(d_batch[p], n, MPI_FLOAT, right, step, MPI_COMM_WORLD, &sreq[p]));

    CHECK_MPI(MPI_Recv(d_in, n, MPI_FLOAT, left, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    accumulate<<<grid, 256, 0, s>>>(d_in, n, d_hist);
    CHECK_CUDA(cudaStreamSynchronize(s));  // d_in is received into again next step
  }
  CHECK_MPI(MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE));

  unsigned *h_hist, *h_total;
  CHECK_CUDA(cudaMallocHost(&h_hist, NBINS * sizeof(unsigned)));
  CHECK_CUDA(cudaMallocHost(&h_total, NBINS * sizeof(unsigned)));
  CHECK_CUDA(cudaMemcpyAsync(h_hist, d_hist, NBINS * sizeof(unsigned), cudaMemcpyDeviceToHost, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  CHECK_MPI(MPI_Reduce(h_hist, h_total, NBINS, MPI_UNSIGNED, MPI_SUM, 0, MPI_COMM_WORLD));
  if (rank == 0) {
    unsigned lo = h_total[0], hi = h_total[0];
    for (int b = 1; b < NBINS; ++b) {
      lo = h_total[b] < lo ? h_total[b] : lo;
      hi = h_total[b] > hi ? h_total[b] : hi;
    }
    printf("histogram of %d x %d samples: bins between %u and %u\n", nranks * nsteps, n, lo, hi);
  }

  for (int p = 0; p < 2; ++p) CHECK_CUDA(cudaFree(d_batch[p]));
  CHECK_CUDA(cudaFree(d_in));
  CHECK_CUDA(cudaFree(d_hist));
  CHECK_CUDA(cudaFreeHost(h_hist));
  CHECK_CUDA(cudaFreeHost(h_total));
  CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
