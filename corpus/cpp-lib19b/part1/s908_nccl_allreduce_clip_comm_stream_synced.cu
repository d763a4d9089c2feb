// Data-parallel consensus training with global-norm gradient clipping, one GPU
// per MPI rank. MPI only bootstraps NCCL. The all-reduce and the norm of the
// reduced gradient run on a communication stream; the host needs the norm to
// pick the clipping factor, so it waits for that stream before the update.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <mpi.h>
#include <nccl.h>
#include <cuda_runtime.h>

#define MPI_CHECK(cmd)                                                          \
  do {                                                                          \
    int rc_ = (cmd);                                                            \
    if (rc_ != 0) {                                                             \
      std::fprintf(stderr, "MPI error %d at %s:%d\n", rc_, __FILE__, __LINE__); \
      std::exit(EXIT_FAILURE);                                                  \
    }                                                                           \
  } while (0)

#define CUDA_CHECK(cmd)                                                         \
  do {                                                                          \
    cudaError_t e_ = (cmd);                                                     \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_),  \
                   __FILE__, __LINE__);                                         \
      std::exit(EXIT_FAILURE);                                                  \
    }                                                                           \
  } while (0)

#define NCCL_CHECK(cmd)                                                         \
  do {                                                                          \
    ncclResult_t r_ = (cmd);                                                    \
    if (r_ != ncclSuccess) {                                                    \
      std::fprintf(stderr, "NCCL error %s at %s:%d\n", ncclGetErrorString(r_),  \
                   __FILE__, __LINE__);                                         \
      std::exit(EXIT_FAILURE);                                                  \
    }                                                                           \
  } while (0)

__global__ void fill(float* p, int n, float value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = value;
}

__global__ void init_shard(float* x, int n, int rank) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = static_cast<float>((i * 31 + rank * 17) % 101) / 101.0f;
}

// d/dw ||w - x||^2
__global__ void local_grad(const float* w, const float* x, float* g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) g[i] = 2.0f * (w[i] - x[i]);
}

__global__ void sum_squares(const float* g, int n, float* out) {
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc += g[i] * g[i];
  atomicAdd(out, acc);
}

__global__ void sgd_step(float* w, const float* g, int n, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= scale * g[i];
}

int main(int argc, char** argv) {
  MPI_CHECK(MPI_Init(&argc, &argv));
  int rank = 0, world = 1;
  MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &world));

  int ndev = 0;
  CUDA_CHECK(cudaGetDeviceCount(&ndev));
  CUDA_CHECK(cudaSetDevice(rank % ndev));

  ncclUniqueId id;
  if (rank == 0) NCCL_CHECK(ncclGetUniqueId(&id));
  MPI_CHECK(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD));
  ncclComm_t comm;
  NCCL_CHECK(ncclCommInitRank(&comm, world, id, rank));

  cudaStream_t compute, comm_stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&comm_stream, cudaStreamNonBlocking));
  cudaEvent_t grads_ready;
  CUDA_CHECK(cudaEventCreateWithFlags(&grads_ready, cudaEventDisableTiming));
  const float max_norm = 5.0f;
  float* d_norm2 = nullptr;
  float* h_norm2 = nullptr;
  CUDA_CHECK(cudaMalloc(&d_norm2, sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_norm2, sizeof(float)));

  const int n = 1 << 20;
  const int threads = 256, blocks = (n + threads - 1) / threads;
  const float lr = 0.1f;
  float *d_w = nullptr, *d_x = nullptr, *d_g = nullptr;
  CUDA_CHECK(cudaMalloc(&d_w, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_g, n * sizeof(float)));
  fill<<<blocks, threads, 0, compute>>>(d_w, n, 0.0f);
  init_shard<<<blocks, threads, 0, compute>>>(d_x, n, rank);
  CUDA_CHECK(cudaGetLastError());

  for (int step = 0; step < 50; ++step) {
    local_grad<<<blocks, threads, 0, compute>>>(d_w, d_x, d_g, n);
    CUDA_CHECK(cudaGetLastError());

    // The all-reduce must not start before the local gradients exist.
    CUDA_CHECK(cudaEventRecord(grads_ready, compute));
    CUDA_CHECK(cudaStreamWaitEvent(comm_stream, grads_ready, 0));
    NCCL_CHECK(ncclAllReduce(d_g, d_g, n, ncclFloat, ncclSum, comm, comm_stream));

    // Global norm of the averaged gradient, computed where the gradient is.
    CUDA_CHECK(cudaMemsetAsync(d_norm2, 0, sizeof(float), comm_stream));
    sum_squares<<<120, threads, 0, comm_stream>>>(d_g, n, d_norm2);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_norm2, d_norm2, sizeof(float), cudaMemcpyDeviceToHost,
                               comm_stream));
    CUDA_CHECK(cudaStreamSynchronize(comm_stream));

    const float norm = std::sqrt(*h_norm2) / world;
    const float clip = norm > max_norm ? max_norm / norm : 1.0f;
    sgd_step<<<blocks, threads, 0, compute>>>(d_w, d_g, n, lr * clip / world);
    CUDA_CHECK(cudaGetLastError());
    if (rank == 0 && step % 10 == 0) std::printf("step %2d  |g| = %.4f\n", step, norm);
  }

  float* h_w = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_w, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpyAsync(h_w, d_w, n * sizeof(float), cudaMemcpyDeviceToHost, compute));
  CUDA_CHECK(cudaStreamSynchronize(compute));
  if (rank == 0) {
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += h_w[i];
    std::printf("mean parameter after training: %.6f\n", sum / n);
  }

  // Every communication-stream operation was waited for inside the loop and
  // the compute stream just above.
  CUDA_CHECK(cudaFreeHost(h_w));
  CUDA_CHECK(cudaFreeHost(h_norm2));
  CUDA_CHECK(cudaFree(d_norm2));
  CUDA_CHECK(cudaFree(d_g));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_w));
  CUDA_CHECK(cudaEventDestroy(grads_ready));
  CUDA_CHECK(cudaStreamDestroy(comm_stream));
  CUDA_CHECK(cudaStreamDestroy(compute));
  NCCL_CHECK(ncclCommDestroy(comm));
  MPI_CHECK(MPI_Finalize());
  return 0;
}
