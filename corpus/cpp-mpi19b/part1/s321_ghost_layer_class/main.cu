// case: a 1D heat solver uses a GhostLayer class whose begin_exchange posts MPI_Irecv into its device ghost buffers and whose end_exchange (also run by the destructor) waits, but main launches the edge kernel that reads the ghosts before calling end_exchange.
// expect: missing_sync=1
#include <cstdio>
#include <vector>
#include <mpi.h>
#include <cuda_runtime.h>
#include "ghost_layer.h"
#include "heat_kernels.cuh"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = 1 << 20, N = n * size, steps = 2000;
  const float r = 0.1f;
  const size_t bytes = (size_t)n * sizeof(float);

  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  float *d_u, *d_unew;
  cudaMalloc(&d_u, bytes);
  cudaMalloc(&d_unew, bytes);
  heat_init<<<(n + 255) / 256, 256, 0, s>>>(d_u, n, rank * n, N);
  cudaStreamSynchronize(s);

  {
    GhostLayer ghosts(HALF_WIDTH, MPI_COMM_WORLD);
    for (int step = 0; step < steps; ++step) {
      ghosts.begin_exchange(d_u, n);  // d_u was completed by the synchronize at the end of the last step
      heat_interior<<<(n + 255) / 256, 256, 0, s>>>(d_u, d_unew, n, r);
      heat_edges<<<1, 32, 0, s>>>(d_u, ghosts.left(), ghosts.right(), d_unew, n, r);  // EXPECT: missing_sync
      ghosts.end_exchange();
      cudaMemcpyAsync(d_u, d_unew, bytes, cudaMemcpyDeviceToDevice, s);
      cudaStreamSynchronize(s);
    }
  }

  std::vector<float> h_u(n);
  cudaMemcpy(h_u.data(), d_u, bytes, cudaMemcpyDeviceToHost);
  double heat = 0.0, total = 0.0;
  for (int i = 0; i < n; ++i) heat += h_u[i];
  MPI_Reduce(&heat, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("total heat %.6f\n", total / N);

  cudaFree(d_u);
  cudaFree(d_unew);
  cudaStreamDestroy(s);
  MPI_Finalize();
  return 0;
}
