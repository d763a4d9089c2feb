// case: near miss of the Monte Carlo tally: the event is recorded after the device-to-host copy into pinned h_flux and synchronized before MPI_Allreduce with MPI_IN_PLACE reads and writes h_flux.
// expect: none
#include <cstdio>
#include <mpi.h>
#include <cuda_runtime.h>

#define NCELLS 64

__device__ float rand01(unsigned long long& s) {
  s ^= s << 13;
  s ^= s >> 7;
  s ^= s << 17;
  return (float)(s >> 40) * (1.0f / 16777216.0f);
}

// track-length flux estimator in a 1D slab of NCELLS cells
__global__ void track_lengths(float* flux, int histories, unsigned long long seed, float width) {
  int h = blockIdx.x * blockDim.x + threadIdx.x;
  if (h >= histories) return;
  unsigned long long s = seed + 0x9E3779B97F4A7C15ull * (unsigned long long)(h + 1);
  float x = width * rand01(s), mu = 2.0f * rand01(s) - 1.0f;
  float cell_w = width / NCELLS;
  for (int k = 0; k < 64; ++k) {
    float d = -__logf(rand01(s) + 1e-7f);
    float x1 = x + mu * d;
    int c = (int)(x / cell_w);
    if (c >= 0 && c < NCELLS) atomicAdd(&flux[c], fabsf(x1 - x));
    if (x1 < 0.0f || x1 > width || rand01(s) < 0.2f) return;
    x = x1;
    mu = 2.0f * rand01(s) - 1.0f;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  cudaEvent_t copied;
  cudaEventCreateWithFlags(&copied, cudaEventDisableTiming);
  float *d_flux, *h_flux;
  cudaMalloc(&d_flux, NCELLS * sizeof(float));
  cudaMallocHost(&h_flux, NCELLS * sizeof(float));

  const int histories = 1 << 19;
  double running = 0.0;
  for (int gen = 0; gen < 20; ++gen) {
    cudaMemsetAsync(d_flux, 0, NCELLS * sizeof(float), stream);
    track_lengths<<<(histories + 255) / 256, 256, 0, stream>>>(d_flux, histories,
                                                               1000003ull * (unsigned long long)(gen * size + rank + 1), 10.0f);
    cudaMemcpyAsync(h_flux, d_flux, NCELLS * sizeof(float), cudaMemcpyDeviceToHost, stream);
    cudaEventRecord(copied, stream);
    cudaEventSynchronize(copied);
    MPI_Allreduce(MPI_IN_PLACE, h_flux, NCELLS, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    float centre = h_flux[NCELLS / 2] / ((float)histories * size);
    running += centre;
    if (rank == 0 && gen % 5 == 4) printf("gen %d: centre flux %.5f (mean %.5f)\n", gen, centre, running / (gen + 1));
  }

  cudaStreamSynchronize(stream);
  cudaFree(d_flux);
  cudaFreeHost(h_flux);
  cudaEventDestroy(copied);
  cudaStreamDestroy(stream);
  MPI_Finalize();
  return 0;
}
