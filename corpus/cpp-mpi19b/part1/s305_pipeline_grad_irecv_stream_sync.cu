// case: a pipeline-parallel training stage posts MPI_Irecv for the gradient of its output and then launches the backward kernel reading d_grad_out after only a cudaStreamSynchronize, which does not complete the receive; MPI_Waitall comes after the launch.
// expect: missing_sync=1
#include <cstdio>
#include <mpi.h>
#include <cuda_runtime.h>

enum { TAG_ACT = 1, TAG_GRAD = 2 };

__global__ void init_weights(float* W, int H, int stage) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < H * H) W[i] = 0.02f * __sinf(0.7f * (float)i + (float)stage);
}

__global__ void make_batch(float* x, int micro, int B, int H) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < B * H) x[i] = __cosf(0.01f * (float)(i + micro * 131));
}

__global__ void make_target(float* t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = (i % 3 == 0) ? 1.0f : 0.0f;
}

// y = relu(x W^T), one thread per output element
__global__ void forward_layer(const float* x, const float* W, float* y, int B, int H) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= B * H) return;
  int b = idx / H, j = idx % H;
  float acc = 0.0f;
  for (int k = 0; k < H; ++k) acc += W[j * H + k] * x[b * H + k];
  y[idx] = acc > 0.0f ? acc : 0.0f;
}

__global__ void loss_grad(const float* y, const float* target, float* gy, int n, int B) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) gy[i] = (y[i] - target[i]) / (float)B;
}

// one thread per input feature k: gx[:, k] and the weight gradient column gW[:, k]
__global__ void backward_layer(const float* x, const float* W, const float* y, const float* gy, float* gx,
                               float* gW, int B, int H) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= H) return;
  for (int b = 0; b < B; ++b) {
    float acc = 0.0f;
    for (int j = 0; j < H; ++j) acc += (y[b * H + j] > 0.0f ? gy[b * H + j] : 0.0f) * W[j * H + k];
    gx[b * H + k] = acc;
  }
  for (int j = 0; j < H; ++j) {
    float acc = 0.0f;
    for (int b = 0; b < B; ++b) acc += (y[b * H + j] > 0.0f ? gy[b * H + j] : 0.0f) * x[b * H + k];
    gW[j * H + k] += acc;
  }
}

__global__ void sgd(float* W, const float* gW, float lr, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) W[i] -= lr * gW[i];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int stage = 0, nstages = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &stage);
  MPI_Comm_size(MPI_COMM_WORLD, &nstages);
  const int last = nstages - 1;
  const int B = 32, H = 512, micro_batches = 8, bs = 256;
  const size_t act_bytes = (size_t)B * H * sizeof(float), w_bytes = (size_t)H * H * sizeof(float);

  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  float *d_W, *d_wgrad, *d_act_in, *d_act_out, *d_grad_out, *d_grad_in, *d_target;
  cudaMalloc(&d_W, w_bytes);
  cudaMalloc(&d_wgrad, w_bytes);
  cudaMalloc(&d_act_in, act_bytes);
  cudaMalloc(&d_act_out, act_bytes);
  cudaMalloc(&d_grad_out, act_bytes);
  cudaMalloc(&d_grad_in, act_bytes);
  cudaMalloc(&d_target, act_bytes);
  init_weights<<<(H * H + bs - 1) / bs, bs, 0, s>>>(d_W, H, stage);
  make_target<<<(B * H + bs - 1) / bs, bs, 0, s>>>(d_target, B * H);
  cudaMemsetAsync(d_wgrad, 0, w_bytes, s);
  cudaMemsetAsync(d_grad_out, 0, act_bytes, s);
  cudaMemsetAsync(d_act_in, 0, act_bytes, s);
  cudaStreamSynchronize(s);

  for (int m = 0; m < micro_batches; ++m) {
    if (stage == 0)
      make_batch<<<(B * H + bs - 1) / bs, bs, 0, s>>>(d_act_in, m, B, H);
    else
      MPI_Recv(d_act_in, B * H, MPI_FLOAT, stage - 1, TAG_ACT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    forward_layer<<<(B * H + bs - 1) / bs, bs, 0, s>>>(d_act_in, d_W, d_act_out, B, H);
    cudaStreamSynchronize(s);  // activations complete before MPI reads them

    MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (stage < last) {
      MPI_Isend(d_act_out, B * H, MPI_FLOAT, stage + 1, TAG_ACT, MPI_COMM_WORLD, &reqs[0]);
      MPI_Irecv(d_grad_out, B * H, MPI_FLOAT, stage + 1, TAG_GRAD, MPI_COMM_WORLD, &reqs[1]);
    } else {
      loss_grad<<<(B * H + bs - 1) / bs, bs, 0, s>>>(d_act_out, d_target, d_grad_out, B * H, B);
    }
    cudaStreamSynchronize(s);  // "the gradient of our output is in d_grad_out"
    backward_layer<<<(H + 127) / 128, 128, 0, s>>>(d_act_in, d_W, d_act_out, d_grad_out, d_grad_in, d_wgrad, B, H);  // EXPECT: missing_sync
    cudaStreamSynchronize(s);
    if (stage > 0) MPI_Send(d_grad_in, B * H, MPI_FLOAT, stage - 1, TAG_GRAD, MPI_COMM_WORLD);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  }

  sgd<<<(H * H + bs - 1) / bs, bs, 0, s>>>(d_W, d_wgrad, 0.01f / micro_batches, H * H);
  cudaStreamSynchronize(s);
  if (stage == last) printf("pipeline of %d stages: step done\n", nstages);
  cudaFree(d_W);
  cudaFree(d_wgrad);
  cudaFree(d_act_in);
  cudaFree(d_act_out);
  cudaFree(d_grad_out);
  cudaFree(d_grad_in);
  cudaFree(d_target);
  cudaStreamDestroy(s);
  MPI_Finalize();
  return 0;
}
