// case: near miss of the pipeline-parallel stage: while the gradient receive is in flight only a weight-decay kernel on other buffers runs, and MPI_Wait completes the MPI_Irecv into d_grad_out before the backward kernel reads it.
// expect: none
#include <cstdio>
#include <mpi.h>
#include <cuda_runtime.h>

enum { TAG_ACT = 11, TAG_GRAD = 12 };

struct StageComm {
  int prev, next;          // MPI_PROC_NULL at the ends of the pipeline
  MPI_Request act_send;    // activations to the next stage
  MPI_Request grad_recv;   // gradient of our output from the next stage
};

__global__ void fill(float* p, int n, float a, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = a * __sinf(b * (float)i);
}

__global__ void forward_layer(const float* x, const float* W, float* y, int B, int H) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= B * H) return;
  int b = idx / H, j = idx % H;
  float acc = 0.0f;
  for (int k = 0; k < H; ++k) acc += W[j * H + k] * x[b * H + k];
  y[idx] = acc > 0.0f ? acc : 0.0f;
}

__global__ void loss_grad(const float* y, float* gy, int n, int B) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) gy[i] = (y[i] - 0.5f) / (float)B;
}

__global__ void weight_decay(const float* W, float* gW, float lambda, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) gW[i] += lambda * W[i];
}

__global__ void backward_input(const float* W, const float* y, const float* gy, float* gx, int B, int H) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= B * H) return;
  int b = idx / H, k = idx % H;
  float acc = 0.0f;
  for (int j = 0; j < H; ++j) acc += (y[b * H + j] > 0.0f ? gy[b * H + j] : 0.0f) * W[j * H + k];
  gx[idx] = acc;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int stage = 0, nstages = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &stage);
  MPI_Comm_size(MPI_COMM_WORLD, &nstages);
  StageComm c;
  c.prev = stage > 0 ? stage - 1 : MPI_PROC_NULL;
  c.next = stage < nstages - 1 ? stage + 1 : MPI_PROC_NULL;
  c.act_send = MPI_REQUEST_NULL;
  c.grad_recv = MPI_REQUEST_NULL;

  const int B = 16, H = 256, bs = 256, n = B * H;
  const size_t act = (size_t)n * sizeof(float), wb = (size_t)H * H * sizeof(float);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  float *d_W, *d_gW, *d_x, *d_y, *d_gy, *d_gx;
  cudaMalloc(&d_W, wb);
  cudaMalloc(&d_gW, wb);
  cudaMalloc(&d_x, act);
  cudaMalloc(&d_y, act);
  cudaMalloc(&d_gy, act);
  cudaMalloc(&d_gx, act);
  fill<<<(H * H + bs - 1) / bs, bs, 0, s>>>(d_W, H * H, 0.05f, 0.3f + stage);
  cudaMemsetAsync(d_gW, 0, wb, s);
  cudaMemsetAsync(d_gy, 0, act, s);
  fill<<<(n + bs - 1) / bs, bs, 0, s>>>(d_x, n, 1.0f, 0.01f);
  cudaStreamSynchronize(s);

  for (int m = 0; m < 6; ++m) {
    MPI_Recv(d_x, n, MPI_FLOAT, c.prev, TAG_ACT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  // stage 0 keeps its input
    forward_layer<<<(n + bs - 1) / bs, bs, 0, s>>>(d_x, d_W, d_y, B, H);
    cudaStreamSynchronize(s);
    if (c.next != MPI_PROC_NULL) {
      MPI_Isend(d_y, n, MPI_FLOAT, c.next, TAG_ACT, MPI_COMM_WORLD, &c.act_send);
      MPI_Irecv(d_gy, n, MPI_FLOAT, c.next, TAG_GRAD, MPI_COMM_WORLD, &c.grad_recv);
    } else {
      loss_grad<<<(n + bs - 1) / bs, bs, 0, s>>>(d_y, d_gy, n, B);
    }
    // overlap: the decay term touches neither d_y nor d_gy
    weight_decay<<<(H * H + bs - 1) / bs, bs, 0, s>>>(d_W, d_gW, 1e-4f, H * H);
    MPI_Wait(&c.grad_recv, MPI_STATUS_IGNORE);
    backward_input<<<(n + bs - 1) / bs, bs, 0, s>>>(d_W, d_y, d_gy, d_gx, B, H);
    cudaStreamSynchronize(s);
    MPI_Send(d_gx, n, MPI_FLOAT, c.prev, TAG_GRAD, MPI_COMM_WORLD);
    MPI_Wait(&c.act_send, MPI_STATUS_IGNORE);
  }

  cudaStreamSynchronize(s);
  if (stage == 0) printf("%d stages ran 6 micro-batches\n", nstages);
  cudaFree(d_W);
  cudaFree(d_gW);
  cudaFree(d_x);
  cudaFree(d_y);
  cudaFree(d_gy);
  cudaFree(d_gx);
  cudaStreamDestroy(s);
  MPI_Finalize();
  return 0;
}
