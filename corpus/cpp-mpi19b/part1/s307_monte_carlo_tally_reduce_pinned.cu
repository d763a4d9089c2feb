// case: a Monte Carlo slab-transport code copies its tally into pinned h_tally with cudaMemcpyAsync but waits on the timing event recorded before that copy, so MPI_Reduce reads h_tally while the device-to-host copy may still be writing it.
// expect: missing_sync=1
#include <cstdio>
#include <mpi.h>
#include <cuda_runtime.h>

#define NBINS 128

__device__ unsigned int lcg(unsigned int& state) {
  state = state * 1664525u + 1013904223u;
  return state;
}

__device__ float uniform01(unsigned int& state) { return (lcg(state) >> 8) * (1.0f / 16777216.0f); }

// each thread follows one particle through a 1D absorbing/scattering slab and tallies where it is absorbed
__global__ void transport(double* tally, int nparticles, unsigned int seed, float sigma_t, float absorb_prob,
                          float thickness) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= nparticles) return;
  unsigned int st = seed ^ (id * 747796405u + 2891336453u);
  float x = 0.0f, mu = 1.0f;
  for (int collision = 0; collision < 1000; ++collision) {
    float dist = -__logf(uniform01(st) + 1e-12f) / sigma_t;
    x += mu * dist;
    if (x < 0.0f || x >= thickness) return;  // leaked
    if (uniform01(st) < absorb_prob) {
      int bin = (int)(x / thickness * NBINS);
      atomicAdd(&tally[bin], 1.0);
      return;
    }
    mu = 2.0f * uniform01(st) - 1.0f;  // isotropic scatter
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int particles_per_batch = 1 << 20, batches = 10;

  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  cudaEvent_t t_start, t_stop;
  cudaEventCreate(&t_start);
  cudaEventCreate(&t_stop);

  double *d_tally, *h_tally, *h_global;
  cudaMalloc(&d_tally, NBINS * sizeof(double));
  cudaMallocHost(&h_tally, NBINS * sizeof(double));
  cudaMallocHost(&h_global, NBINS * sizeof(double));

  double kernel_ms = 0.0;
  for (int b = 0; b < batches; ++b) {
    cudaMemsetAsync(d_tally, 0, NBINS * sizeof(double), stream);
    cudaEventRecord(t_start, stream);
    transport<<<(particles_per_batch + 255) / 256, 256, 0, stream>>>(
        d_tally, particles_per_batch, 12345u + 7919u * (unsigned)(rank * batches + b), 1.0f, 0.3f, 8.0f);
    cudaEventRecord(t_stop, stream);
    cudaMemcpyAsync(h_tally, d_tally, NBINS * sizeof(double), cudaMemcpyDeviceToHost, stream);
    cudaEventSynchronize(t_stop);
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, t_start, t_stop);
    kernel_ms += ms;

    MPI_Reduce(h_tally, h_global, NBINS, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);  // EXPECT: missing_sync
    if (rank == 0) {
      double absorbed = 0.0;
      for (int i = 0; i < NBINS; ++i) absorbed += h_global[i];
      printf("batch %d: absorbed fraction %.5f\n", b, absorbed / ((double)particles_per_batch * size));
    }
    cudaStreamSynchronize(stream);
  }
  if (rank == 0) printf("transport kernel: %.2f ms per batch\n", kernel_ms / batches);

  cudaFree(d_tally);
  cudaFreeHost(h_tally);
  cudaFreeHost(h_global);
  cudaEventDestroy(t_start);
  cudaEventDestroy(t_stop);
  cudaStreamDestroy(stream);
  MPI_Finalize();
  return 0;
}
