// case: a pipeline-parallel inference stage prefetches the next micro-batch with MPI_Irecv, launches its layer kernel, then calls MPI_Wait on the receive and hands d_act_out to MPI_Send; the MPI wait does not wait for the kernel still writing d_act_out.
// expect: missing_sync=1
#include <cstdio>
#include <mpi.h>
#include <cuda_runtime.h>

static const int B = 64, H = 1024, MICRO = 12;

__global__ void fill_weights(float* w, float* bias, int h, int stage) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < h * h) w[i] = 0.5f / h * __cosf(0.11f * (float)i + (float)stage);
  if (i < h) bias[i] = 0.01f * (float)(i % 7);
}

__global__ void make_input(float* x, int n, int micro) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = __sinf(0.002f * (float)i + 0.3f * (float)micro);
}

// y = gelu(x W^T + b)
__global__ void layer_fwd(const float* x, const float* w, const float* bias, float* y, int b, int h) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= b * h) return;
  int r = idx / h, j = idx % h;
  float z = bias[j];
  for (int k = 0; k < h; ++k) z += w[j * h + k] * x[r * h + k];
  y[idx] = 0.5f * z * (1.0f + tanhf(0.7978845f * (z + 0.044715f * z * z * z)));
}

__global__ void row_max(const float* y, float* out, int b, int h) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= b) return;
  float m = y[r * h];
  for (int j = 1; j < h; ++j) m = fmaxf(m, y[r * h + j]);
  out[r] = m;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int stage = 0, nstages = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &stage);
  MPI_Comm_size(MPI_COMM_WORLD, &nstages);
  const int prev = stage > 0 ? stage - 1 : MPI_PROC_NULL;
  const int next = stage < nstages - 1 ? stage + 1 : MPI_PROC_NULL;
  const int n = B * H;
  const size_t bytes = (size_t)n * sizeof(float);

  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  float *d_w, *d_bias, *d_act_in, *d_act_next, *d_act_out, *d_rowmax, *h_rowmax;
  cudaMalloc(&d_w, (size_t)H * H * sizeof(float));
  cudaMalloc(&d_bias, H * sizeof(float));
  cudaMalloc(&d_act_in, bytes);
  cudaMalloc(&d_act_next, bytes);
  cudaMalloc(&d_act_out, bytes);
  cudaMalloc(&d_rowmax, B * sizeof(float));
  cudaMallocHost(&h_rowmax, B * sizeof(float));
  fill_weights<<<(H * H + 255) / 256, 256, 0, s>>>(d_w, d_bias, H, stage);
  cudaMemsetAsync(d_act_next, 0, bytes, s);
  if (stage == 0) make_input<<<(n + 255) / 256, 256, 0, s>>>(d_act_in, n, 0);
  else cudaMemsetAsync(d_act_in, 0, bytes, s);
  cudaStreamSynchronize(s);
  MPI_Recv(d_act_in, n, MPI_FLOAT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

  float best = -1e30f;
  for (int m = 0; m < MICRO; ++m) {
    MPI_Request recv_req = MPI_REQUEST_NULL;
    if (m + 1 < MICRO) {
      if (stage == 0)
        make_input<<<(n + 255) / 256, 256, 0, s>>>(d_act_next, n, m + 1);
      else
        MPI_Irecv(d_act_next, n, MPI_FLOAT, prev, m + 1, MPI_COMM_WORLD, &recv_req);
    }
    layer_fwd<<<(n + 255) / 256, 256, 0, s>>>(d_act_in, d_w, d_bias, d_act_out, B, H);

    MPI_Wait(&recv_req, MPI_STATUS_IGNORE);  // next micro-batch has arrived
    MPI_Send(d_act_out, n, MPI_FLOAT, next, m, MPI_COMM_WORLD);  // EXPECT: missing_sync

    if (next == MPI_PROC_NULL) {
      row_max<<<(B + 63) / 64, 64, 0, s>>>(d_act_out, d_rowmax, B, H);
      cudaMemcpyAsync(h_rowmax, d_rowmax, B * sizeof(float), cudaMemcpyDeviceToHost, s);
    }
    if (m + 1 < MICRO) cudaMemcpyAsync(d_act_in, d_act_next, bytes, cudaMemcpyDeviceToDevice, s);
    cudaStreamSynchronize(s);  // d_act_next may be received into again
    if (next == MPI_PROC_NULL)
      for (int r = 0; r < B; ++r) best = h_rowmax[r] > best ? h_rowmax[r] : best;
  }
  if (next == MPI_PROC_NULL) printf("last stage: max activation %.4f\n", best);

  cudaFree(d_w);
  cudaFree(d_bias);
  cudaFree(d_act_in);
  cudaFree(d_act_next);
  cudaFree(d_act_out);
  cudaFree(d_rowmax);
  cudaFreeHost(h_rowmax);
  cudaStreamDestroy(s);
  MPI_Finalize();
  return 0;
}
