// case: near miss of the gradient-gathering parameter server: the worker records an event after its gradient kernel and the header's helper waits on it with cudaEventSynchronize before MPI_Gatherv, and the server's update is waited for the same way before MPI_Scatterv.
// expect: none
#include <cstdio>
#include <mpi.h>
#include <cuda_runtime.h>
#include "ps_comm.h"
#include "ps_kernels.cuh"

static int blocks_for(int n, int bs) { return n > 0 ? (n + bs - 1) / bs : 1; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  PsLayout L = ps_layout(MPI_COMM_WORLD, 1 << 20);
  const int n = L.mine(), N = L.nparams, bs = 256;

  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  cudaEvent_t grad_ready, params_ready;
  cudaEventCreateWithFlags(&grad_ready, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&params_ready, cudaEventDisableTiming);

  float *d_w_full, *d_vel, *d_g_full, *d_w, *d_target, *d_g;
  cudaMalloc(&d_w_full, (size_t)N * sizeof(float));
  cudaMalloc(&d_vel, (size_t)N * sizeof(float));
  cudaMalloc(&d_g_full, (size_t)N * sizeof(float));
  cudaMalloc(&d_w, (size_t)n * sizeof(float));
  cudaMalloc(&d_target, (size_t)n * sizeof(float));
  cudaMalloc(&d_g, (size_t)n * sizeof(float));

  ps_fill<<<blocks_for(N, bs), bs, 0, stream>>>(d_w_full, N, 0.5f, 1);
  ps_fill<<<blocks_for(n, bs), bs, 0, stream>>>(d_target, n, 1.0f, 7 + L.rank);
  cudaMemsetAsync(d_vel, 0, (size_t)N * sizeof(float), stream);
  cudaMemsetAsync(d_g_full, 0, (size_t)N * sizeof(float), stream);
  cudaMemsetAsync(d_w, 0, (size_t)n * sizeof(float), stream);
  cudaEventRecord(params_ready, stream);
  ps_scatter_params(L, d_w_full, d_w, params_ready);

  for (int round = 0; round < 100; ++round) {
    ps_worker_grad<<<blocks_for(n, bs), bs, 0, stream>>>(d_w, d_target, d_g, n);
    cudaEventRecord(grad_ready, stream);
    ps_gather_grads(L, d_g, d_g_full, grad_ready);
    if (L.rank == L.root) ps_apply<<<blocks_for(N, bs), bs, 0, stream>>>(d_w_full, d_vel, d_g_full, 0.05f, 0.9f, N);
    cudaEventRecord(params_ready, stream);
    ps_scatter_params(L, d_w_full, d_w, params_ready);
  }

  cudaStreamSynchronize(stream);
  if (L.rank == L.root) printf("done: %d params over %d ranks\n", N, L.size);
  cudaFree(d_w_full);
  cudaFree(d_vel);
  cudaFree(d_g_full);
  cudaFree(d_w);
  cudaFree(d_target);
  cudaFree(d_g);
  cudaEventDestroy(grad_ready);
  cudaEventDestroy(params_ready);
  cudaStreamDestroy(stream);
  MPI_Finalize();
  return 0;
}
