// case: near miss of the in-place MPI_Iallreduce on pinned statistics: a small struct starts the reduction of loss and accuracy counts, the optimizer kernel overlaps it on other buffers, and the struct's finish() calls MPI_Wait before the host reads h_buf.
// expect: none
#include <cstdio>
#include <mpi.h>
#include <cuda_runtime.h>

struct AsyncStats {
  double* h_buf;  // pinned: [0] loss sum, [1] correct, [2] samples
  MPI_Request req;

  void start(MPI_Comm comm) { MPI_Iallreduce(MPI_IN_PLACE, h_buf, 3, MPI_DOUBLE, MPI_SUM, comm, &req); }
  void finish() { MPI_Wait(&req, MPI_STATUS_IGNORE); }
};

__global__ void init(float* w, float* x, int* y, int nw, int nsamples, int dim, int rank) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nw) w[i] = 0.0f;
  if (i < nsamples * dim) x[i] = __sinf(0.37f * (float)(i + rank * 1000));
  if (i < nsamples) y[i] = (i * 7 + rank) % 2;
}

// logistic regression: per-sample loss, correctness and the gradient
__global__ void forward_backward(const float* w, const float* x, const int* y, float* grad, double* stats,
                                 int nsamples, int dim) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= nsamples) return;
  float z = 0.0f;
  for (int d = 0; d < dim; ++d) z += w[d] * x[s * dim + d];
  float p = 1.0f / (1.0f + __expf(-z));
  float err = p - (float)y[s];
  for (int d = 0; d < dim; ++d) atomicAdd(&grad[d], err * x[s * dim + d] / nsamples);
  atomicAdd(&stats[0], (double)(y[s] ? -__logf(p + 1e-7f) : -__logf(1.0f - p + 1e-7f)));
  atomicAdd(&stats[1], (double)((p > 0.5f) == (y[s] == 1)));
}

__global__ void apply_grad(float* w, const float* grad, float lr, int dim) {
  int d = blockIdx.x * blockDim.x + threadIdx.x;
  if (d < dim) w[d] -= lr * grad[d];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int dim = 128, nsamples = 8192, bs = 256;

  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  float *d_w, *d_x, *d_grad;
  int* d_y;
  double* d_stats;
  cudaMalloc(&d_w, dim * sizeof(float));
  cudaMalloc(&d_x, (size_t)nsamples * dim * sizeof(float));
  cudaMalloc(&d_y, nsamples * sizeof(int));
  cudaMalloc(&d_grad, dim * sizeof(float));
  cudaMalloc(&d_stats, 2 * sizeof(double));
  AsyncStats stats;
  stats.req = MPI_REQUEST_NULL;
  cudaMallocHost(&stats.h_buf, 3 * sizeof(double));
  init<<<(nsamples * dim + bs - 1) / bs, bs, 0, s>>>(d_w, d_x, d_y, dim, nsamples, dim, rank);
  cudaStreamSynchronize(s);

  for (int epoch = 0; epoch < 30; ++epoch) {
    cudaMemsetAsync(d_grad, 0, dim * sizeof(float), s);
    cudaMemsetAsync(d_stats, 0, 2 * sizeof(double), s);
    forward_backward<<<(nsamples + bs - 1) / bs, bs, 0, s>>>(d_w, d_x, d_y, d_grad, d_stats, nsamples, dim);
    cudaMemcpyAsync(stats.h_buf, d_stats, 2 * sizeof(double), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    stats.h_buf[2] = (double)nsamples;
    stats.start(MPI_COMM_WORLD);

    MPI_Allreduce(MPI_IN_PLACE, d_grad, dim, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    apply_grad<<<1, dim, 0, s>>>(d_w, d_grad, 0.5f / size, dim);  // overlaps the statistics reduction

    stats.finish();
    double loss = stats.h_buf[0] / stats.h_buf[2], acc = stats.h_buf[1] / stats.h_buf[2];
    if (rank == 0) printf("epoch %2d loss %.4f acc %.3f\n", epoch, loss, acc);
    cudaStreamSynchronize(s);
  }

  cudaFree(d_w);
  cudaFree(d_x);
  cudaFree(d_y);
  cudaFree(d_grad);
  cudaFree(d_stats);
  cudaFreeHost(stats.h_buf);
  cudaStreamDestroy(s);
  MPI_Finalize();
  return 0;
}
