// case: near miss of the overlapped checkpoint: each rank ships a weight snapshot to the writer rank with MPI_Isend from d_snap and, while the send is in flight, only a checksum kernel that reads d_snap and training kernels on other buffers run; MPI_Wait completes the send before the next snapshot overwrites d_snap.
// expect: none
#include <cstdio>
#include <mpi.h>
#include <cuda_runtime.h>

enum { TAG_SNAPSHOT = 77 };

__global__ void init_params(float* w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] = 0.05f * __cosf(0.021f * (float)i);
}

__global__ void train_step(float* w, float* m, int n, int step) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float g = w[i] - 0.5f * __sinf(0.0005f * (float)(i + step));
  m[i] = 0.9f * m[i] + g;
  w[i] -= 0.01f * m[i];
}

__global__ void checksum(const float* snap, unsigned long long* sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(sum, (unsigned long long)(__float_as_uint(snap[i]) & 0xffffu));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int writer = 0, n = 1 << 21, bs = 256, blocks = (n + bs - 1) / bs;
  const size_t bytes = (size_t)n * sizeof(float);

  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  float *d_w, *d_m, *d_snap, *h_incoming;
  unsigned long long *d_sum, *h_sum;
  cudaMalloc(&d_w, bytes);
  cudaMalloc(&d_m, bytes);
  cudaMalloc(&d_snap, bytes);
  cudaMalloc(&d_sum, sizeof(unsigned long long));
  cudaMallocHost(&h_sum, sizeof(unsigned long long));
  cudaMallocHost(&h_incoming, bytes);
  init_params<<<blocks, bs, 0, s>>>(d_w, n);
  cudaMemsetAsync(d_m, 0, bytes, s);
  cudaStreamSynchronize(s);

  MPI_Request snap_req = MPI_REQUEST_NULL;
  for (int step = 1; step <= 400; ++step) {
    train_step<<<blocks, bs, 0, s>>>(d_w, d_m, n, step);
    if (step % 100 != 0) continue;

    MPI_Wait(&snap_req, MPI_STATUS_IGNORE);  // the previous snapshot has left d_snap
    cudaMemcpyAsync(d_snap, d_w, bytes, cudaMemcpyDeviceToDevice, s);
    cudaStreamSynchronize(s);
    MPI_Isend(d_snap, n, MPI_FLOAT, writer, TAG_SNAPSHOT, MPI_COMM_WORLD, &snap_req);

    // both only read d_snap while the send is in flight
    cudaMemsetAsync(d_sum, 0, sizeof(unsigned long long), s);
    checksum<<<blocks, bs, 0, s>>>(d_snap, d_sum, n);
    cudaMemcpyAsync(h_sum, d_sum, sizeof(unsigned long long), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    printf("rank %d step %d snapshot checksum %llu\n", rank, step, *h_sum);

    if (rank == writer) {
      for (int src = 0; src < size; ++src) {
        MPI_Recv(h_incoming, n, MPI_FLOAT, src, TAG_SNAPSHOT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        char name[64];
        snprintf(name, sizeof(name), "snap_%d_rank%d.bin", step, src);
        FILE* f = fopen(name, "wb");
        if (f) {
          fwrite(h_incoming, sizeof(float), n, f);
          fclose(f);
        }
      }
    }
  }

  MPI_Wait(&snap_req, MPI_STATUS_IGNORE);
  cudaStreamSynchronize(s);
  cudaFree(d_w);
  cudaFree(d_m);
  cudaFree(d_snap);
  cudaFree(d_sum);
  cudaFreeHost(h_sum);
  cudaFreeHost(h_incoming);
  cudaStreamDestroy(s);
  MPI_Finalize();
  return 0;
}
