// case: Bidirectional ping-pong benchmark near miss: every verification kernel on d_recv is followed by cudaStreamSynchronize before the loop comes back to the MPI_Sendrecv that overwrites d_recv.
// expect: none
#include <cuda_runtime.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(x)                                                           \
  do {                                                                          \
    cudaError_t rc = (x);                                                       \
    if (rc != cudaSuccess) {                                                    \
      fprintf(stderr, "[%s:%d] %s: %s\n", __FILE__, __LINE__, #x,               \
              cudaGetErrorString(rc));                                          \
      abort();                                                                  \
    }                                                                           \
  } while (0)
#define CHECK_MPI(x)                                                            \
  do {                                                                          \
    int rc = (x);                                                               \
    if (rc != MPI_SUCCESS) {                                                    \
      fprintf(stderr, "[%s:%d] %s: MPI error %d\n", __FILE__, __LINE__, #x, rc); \
      MPI_Abort(MPI_COMM_WORLD, rc);                                            \
      abort();                                                                  \
    }                                                                           \
  } while (0)

__device__ unsigned char pattern(size_t i, int sender, unsigned size_tag) {
  return (unsigned char)((i * 31u + (unsigned)sender * 7u + size_tag) & 0xffu);
}

__global__ void stamp(unsigned char* buf, size_t n, int sender, unsigned size_tag) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)
    buf[i] = pattern(i, sender, size_tag);
}

__global__ void verify(const unsigned char* buf, size_t n, int sender, unsigned size_tag,
                       unsigned long long* bad) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)
    if (buf[i] != pattern(i, sender, size_tag)) atomicAdd(bad, 1ULL);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = 0, nranks = 1;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
  if (nranks != 2) {
    if (rank == 0) fprintf(stderr, "run with exactly 2 ranks\n");
    MPI_Finalize();
    return 1;
  }
  int ndev = 0;
  CHECK_CUDA(cudaGetDeviceCount(&ndev));
  CHECK_CUDA(cudaSetDevice(rank % ndev));

  const int peer = 1 - rank;
  const size_t max_bytes = (size_t)1 << 22;
  const int warmup = 10, iters = 100;
  const int grid = 256, threads = 256;

  unsigned char *d_send, *d_recv;
  unsigned long long *d_bad, *h_bad;
  CHECK_CUDA(cudaMalloc(&d_send, max_bytes));
  CHECK_CUDA(cudaMalloc(&d_recv, max_bytes));
  CHECK_CUDA(cudaMalloc(&d_bad, sizeof(unsigned long long)));
  CHECK_CUDA(cudaMallocHost(&h_bad, sizeof(unsigned long long)));
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));

  if (rank == 0) printf("%12s %12s %12s %10s\n", "bytes", "usec", "GB/s", "bad");
  for (size_t bytes = 8; bytes <= max_bytes; bytes *= 2) {
    const unsigned size_tag = (unsigned)bytes;
    stamp<<<grid, threads, 0, s>>>(d_send, bytes, rank, size_tag);
    CHECK_CUDA(cudaMemsetAsync(d_bad, 0, sizeof(unsigned long long), s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    double t0 = MPI_Wtime();
    for (int it = 0; it < warmup + iters; ++it) {
      if (it == warmup) t0 = MPI_Wtime();
      CHECK_MPI(MPI_Sendrecv(d_send, (int)bytes, MPI_BYTE, peer, 0,
                             d_recv, (int)bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE));
      verify<<<grid, threads, 0, s>>>(d_recv, bytes, peer, size_tag, d_bad);
      CHECK_CUDA(cudaStreamSynchronize(s));  // d_recv is checked before it is received into again
    }
    const double usec = 1e6 * (MPI_Wtime() - t0) / iters;

    CHECK_CUDA(cudaMemcpyAsync(h_bad, d_bad, sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    if (rank == 0)
      printf("%12zu %12.2f %12.3f %10llu\n", bytes, usec, 2.0 * bytes / (usec * 1e3), *h_bad);
  }

  CHECK_CUDA(cudaFree(d_send));
  CHECK_CUDA(cudaFree(d_recv));
  CHECK_CUDA(cudaFree(d_bad));
  CHECK_CUDA(cudaFreeHost(h_bad));
  CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
