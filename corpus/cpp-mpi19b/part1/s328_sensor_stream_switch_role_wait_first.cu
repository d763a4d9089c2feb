// case: near miss of the role-switched streaming producer: each sensor rank launches the next reading's kernel, then MPI_Waits on the previous MPI_Isend from its pinned staging buffer before the host writes the new header and the copy refills it.
// expect: none
#include <cstdio>
#include <mpi.h>
#include <cuda_runtime.h>

enum Role { AGGREGATOR, SENSOR };
static const int SAMPLES = 1 << 16, HDR = 2, READINGS = 200;

static Role role_of(int rank) { return rank == 0 ? AGGREGATOR : SENSOR; }

__global__ void sample_sensor(float* out, int n, int sensor, int reading) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __sinf(0.0007f * (float)i * (float)(sensor + 1) + 0.01f * (float)reading);
}

__global__ void spectrum_bin(const float* in, float* bins, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[(int)((in[i] + 1.0f) * 0.5f * (nbins - 1))], 1.0f);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int msg = HDR + SAMPLES, nbins = 64;
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);

  switch (role_of(rank)) {
    case SENSOR: {
      float *d_sample, *h_stage;
      cudaMalloc(&d_sample, SAMPLES * sizeof(float));
      cudaMallocHost(&h_stage, msg * sizeof(float));
      MPI_Request send_req = MPI_REQUEST_NULL;
      for (int r = 0; r < READINGS; ++r) {
        sample_sensor<<<(SAMPLES + 255) / 256, 256, 0, s>>>(d_sample, SAMPLES, rank, r);  // overlaps the send
        MPI_Wait(&send_req, MPI_STATUS_IGNORE);  // the previous reading has left h_stage
        h_stage[0] = (float)rank;
        h_stage[1] = (float)r;
        cudaMemcpyAsync(h_stage + HDR, d_sample, SAMPLES * sizeof(float), cudaMemcpyDeviceToHost, s);
        cudaStreamSynchronize(s);
        MPI_Isend(h_stage, msg, MPI_FLOAT, 0, r, MPI_COMM_WORLD, &send_req);
      }
      MPI_Wait(&send_req, MPI_STATUS_IGNORE);
      cudaFree(d_sample);
      cudaFreeHost(h_stage);
      break;
    }
    case AGGREGATOR: {
      float *h_in, *d_in, *d_bins, *h_bins;
      cudaMallocHost(&h_in, msg * sizeof(float));
      cudaMallocHost(&h_bins, nbins * sizeof(float));
      cudaMalloc(&d_in, SAMPLES * sizeof(float));
      cudaMalloc(&d_bins, nbins * sizeof(float));
      cudaMemsetAsync(d_bins, 0, nbins * sizeof(float), s);
      for (int k = 0; k < READINGS * (size - 1); ++k) {
        MPI_Recv(h_in, msg, MPI_FLOAT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if ((int)h_in[1] % 50 == 0) printf("sensor %d reading %d\n", (int)h_in[0], (int)h_in[1]);
        cudaMemcpyAsync(d_in, h_in + HDR, SAMPLES * sizeof(float), cudaMemcpyHostToDevice, s);
        spectrum_bin<<<(SAMPLES + 255) / 256, 256, 0, s>>>(d_in, d_bins, SAMPLES, nbins);
        cudaStreamSynchronize(s);
      }
      cudaMemcpyAsync(h_bins, d_bins, nbins * sizeof(float), cudaMemcpyDeviceToHost, s);
      cudaStreamSynchronize(s);
      printf("aggregated %d readings, bin 0 = %.0f\n", READINGS * (size - 1), h_bins[0]);
      cudaFree(d_in);
      cudaFree(d_bins);
      cudaFreeHost(h_in);
      cudaFreeHost(h_bins);
      break;
    }
  }

  cudaStreamDestroy(s);
  MPI_Finalize();
  return 0;
}
