// case: near miss of the class-held receive: a worker posts the next batch's MPI_Irecv through a PendingRecv object whose destructor calls MPI_Wait, scores the current batch on other buffers inside that block, and reads the received d_next only after the block has ended.
// expect: none
#include <cstdio>
#include <mpi.h>
#include <cuda_runtime.h>
#include "pending_recv.h"
#include "infer_kernels.cuh"

static const int ROWS = 4096, DIM = 64, BATCHES = 16;

static void feeder(int size) {
  const int n = ROWS * DIM;
  float* d_batch;
  cudaMalloc(&d_batch, n * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  for (int b = 0; b < BATCHES; ++b) {
    for (int w = 1; w < size; ++w) {
      gen_batch<<<(n + 255) / 256, 256, 0, s>>>(d_batch, n, b * size + w);
      cudaStreamSynchronize(s);
      MPI_Send(d_batch, n, MPI_FLOAT, w, b, MPI_COMM_WORLD);
    }
  }
  cudaStreamDestroy(s);
  cudaFree(d_batch);
}

static double worker() {
  const int n = ROWS * DIM;
  float *d_cur, *d_next, *d_w, *d_score, *h_score;
  cudaMalloc(&d_cur, n * sizeof(float));
  cudaMalloc(&d_next, n * sizeof(float));
  cudaMalloc(&d_w, DIM * sizeof(float));
  cudaMalloc(&d_score, ROWS * sizeof(float));
  cudaMallocHost(&h_score, ROWS * sizeof(float));
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  init_weights<<<1, DIM, 0, s>>>(d_w, DIM);
  cudaMemsetAsync(d_cur, 0, n * sizeof(float), s);
  cudaMemsetAsync(d_next, 0, n * sizeof(float), s);
  cudaStreamSynchronize(s);

  double checksum = 0.0;
  MPI_Recv(d_cur, n, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int b = 0; b < BATCHES; ++b) {
    {
      PendingRecv next(d_next, b + 1 < BATCHES ? n : 0, b + 1 < BATCHES ? 0 : MPI_PROC_NULL, b + 1, MPI_COMM_WORLD);
      score_rows<<<(ROWS + 127) / 128, 128, 0, s>>>(d_cur, d_w, d_score, ROWS, DIM);
      cudaMemcpyAsync(h_score, d_score, ROWS * sizeof(float), cudaMemcpyDeviceToHost, s);
      cudaStreamSynchronize(s);
      for (int r = 0; r < ROWS; ++r) checksum += h_score[r];
    }  // ~PendingRecv: the next batch is in d_next
    if (b + 1 == BATCHES) break;
    standardize<<<(n + 255) / 256, 256, 0, s>>>(d_next, d_cur, n);
    cudaStreamSynchronize(s);  // d_next is free for the next receive
  }

  cudaStreamDestroy(s);
  cudaFree(d_cur);
  cudaFree(d_next);
  cudaFree(d_w);
  cudaFree(d_score);
  cudaFreeHost(h_score);
  return checksum;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double mine = 0.0, total = 0.0;
  if (rank == 0)
    feeder(size);
  else
    mine = worker();
  MPI_Reduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("scored %d batches on %d workers, checksum %.3f\n", BATCHES, size - 1, total);
  MPI_Finalize();
  return 0;
}
