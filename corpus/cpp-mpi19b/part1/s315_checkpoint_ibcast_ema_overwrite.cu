// case: data-parallel training broadcasts rank 0's EMA weights for the checkpoint with MPI_Ibcast on d_ema and overlaps it with the following steps, but the next step's EMA update kernel writes d_ema before the MPI_Wait that was meant to end the overlap.
// expect: missing_sync=1
#include <cstdio>
#include <vector>
#include <mpi.h>
#include <cuda_runtime.h>

__global__ void init_params(float* w, int n, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] = scale * __sinf(0.013f * (float)i);
}

__global__ void local_grad(const float* w, float* g, int n, int step, int rank) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) g[i] = w[i] - __cosf(0.001f * (float)(i + 17 * rank + step));
}

__global__ void sgd(float* w, const float* g, float lr, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= lr * g[i];
}

__global__ void ema_update(float* ema, const float* w, float decay, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) ema[i] = decay * ema[i] + (1.0f - decay) * w[i];
}

static void write_checkpoint(const std::vector<float>& h, int rank, int step) {
  char name[64];
  snprintf(name, sizeof(name), "ema_r%d_s%d.bin", rank, step);
  FILE* f = fopen(name, "wb");
  if (!f) return;
  fwrite(h.data(), sizeof(float), h.size(), f);
  fclose(f);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = 1 << 22, bs = 256, blocks = (n + bs - 1) / bs;
  const int steps = 300, ckpt_every = 50;
  const size_t bytes = (size_t)n * sizeof(float);

  cudaStream_t s;
  cudaStreamCreate(&s);
  float *d_w, *d_g, *d_ema;
  cudaMalloc(&d_w, bytes);
  cudaMalloc(&d_g, bytes);
  cudaMalloc(&d_ema, bytes);
  init_params<<<blocks, bs, 0, s>>>(d_w, n, 0.1f);
  cudaMemcpyAsync(d_ema, d_w, bytes, cudaMemcpyDeviceToDevice, s);
  cudaStreamSynchronize(s);
  MPI_Bcast(d_w, n, MPI_FLOAT, 0, MPI_COMM_WORLD);
  MPI_Bcast(d_ema, n, MPI_FLOAT, 0, MPI_COMM_WORLD);

  MPI_Request ckpt_req = MPI_REQUEST_NULL;
  std::vector<float> h_ckpt(n);
  for (int step = 1; step <= steps; ++step) {
    local_grad<<<blocks, bs, 0, s>>>(d_w, d_g, n, step, rank);
    cudaStreamSynchronize(s);
    MPI_Allreduce(MPI_IN_PLACE, d_g, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    sgd<<<blocks, bs, 0, s>>>(d_w, d_g, 0.05f / size, n);
    ema_update<<<blocks, bs, 0, s>>>(d_ema, d_w, 0.99f, n);  // EXPECT: missing_sync

    if (ckpt_req != MPI_REQUEST_NULL) {
      // the broadcast started at the last checkpoint step has overlapped this step's compute
      MPI_Wait(&ckpt_req, MPI_STATUS_IGNORE);
      cudaStreamSynchronize(s);
      cudaMemcpy(h_ckpt.data(), d_ema, bytes, cudaMemcpyDeviceToHost);
      write_checkpoint(h_ckpt, rank, step - 1);
    }
    if (step % ckpt_every == 0) {
      cudaStreamSynchronize(s);
      MPI_Ibcast(d_ema, n, MPI_FLOAT, 0, MPI_COMM_WORLD, &ckpt_req);  // every rank saves rank 0's EMA
    }
  }

  MPI_Wait(&ckpt_req, MPI_STATUS_IGNORE);
  cudaStreamSynchronize(s);
  cudaMemcpy(h_ckpt.data(), d_ema, bytes, cudaMemcpyDeviceToHost);
  write_checkpoint(h_ckpt, rank, steps);

  cudaFree(d_w);
  cudaFree(d_g);
  cudaFree(d_ema);
  cudaStreamDestroy(s);
  MPI_Finalize();
  return 0;
}
