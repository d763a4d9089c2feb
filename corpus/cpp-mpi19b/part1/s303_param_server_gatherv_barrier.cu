// case: an embedding-table parameter server gathers the workers' gradient shards with MPI_Gatherv straight from device memory after only an MPI_Barrier, which does not wait for the gradient kernel still writing d_grad_local on the stream.
// expect: missing_sync=1
#include <cstdio>
#include <vector>
#include <mpi.h>
#include <cuda_runtime.h>

__global__ void init_table(float* table, int nrows, int dim) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nrows * dim) table[i] = 0.01f * (float)((i * 2654435761u) % 1000) - 5.0f;
}

__global__ void init_targets(float* targets, int first_row, int nrows, int dim) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nrows * dim) targets[i] = __sinf(0.001f * (float)(first_row * dim + i));
}

// L2 loss against the targets: grad = rows - targets
__global__ void compute_grad(const float* rows, const float* targets, float* grad, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) grad[i] = rows[i] - targets[i];
}

__global__ void sgd_update(float* table, const float* grad, float lr, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) table[i] -= lr * grad[i];
}

__global__ void sq_error(const float* rows, const float* targets, float* loss, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float d = rows[i] - targets[i];
    atomicAdd(loss, d * d);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int server = 0;
  const int total_rows = 4099, dim = 64;

  // uneven row shards: counts and displacements in floats
  std::vector<int> counts(size), displs(size);
  int first_row = 0;
  for (int r = 0, off = 0; r < size; ++r) {
    int rows_r = total_rows / size + (r < total_rows % size ? 1 : 0);
    if (r == rank) first_row = off;
    counts[r] = rows_r * dim;
    displs[r] = off * dim;
    off += rows_r;
  }
  const int nloc = counts[rank];
  const int ntotal = total_rows * dim;

  cudaStream_t s;
  cudaStreamCreate(&s);
  float *d_table, *d_grad_all, *d_rows_local, *d_targets, *d_grad_local, *d_loss, *h_loss;
  cudaMalloc(&d_table, (size_t)ntotal * sizeof(float));
  cudaMalloc(&d_grad_all, (size_t)ntotal * sizeof(float));
  cudaMalloc(&d_rows_local, (size_t)nloc * sizeof(float));
  cudaMalloc(&d_targets, (size_t)nloc * sizeof(float));
  cudaMalloc(&d_grad_local, (size_t)nloc * sizeof(float));
  cudaMalloc(&d_loss, sizeof(float));
  cudaMallocHost(&h_loss, sizeof(float));

  const int bs = 256;
  init_table<<<(ntotal + bs - 1) / bs, bs, 0, s>>>(d_table, total_rows, dim);
  init_targets<<<(nloc + bs - 1) / bs, bs, 0, s>>>(d_targets, first_row, nloc / dim, dim);
  cudaMemsetAsync(d_grad_all, 0, (size_t)ntotal * sizeof(float), s);
  cudaMemsetAsync(d_rows_local, 0, (size_t)nloc * sizeof(float), s);
  cudaStreamSynchronize(s);
  MPI_Scatterv(d_table, counts.data(), displs.data(), MPI_FLOAT, d_rows_local, nloc, MPI_FLOAT, server,
               MPI_COMM_WORLD);

  const float lr = 0.2f;
  for (int epoch = 0; epoch < 50; ++epoch) {
    compute_grad<<<(nloc + bs - 1) / bs, bs, 0, s>>>(d_rows_local, d_targets, d_grad_local, nloc);
    MPI_Barrier(MPI_COMM_WORLD);  // every worker has produced its gradient shard
    MPI_Gatherv(d_grad_local, nloc, MPI_FLOAT, d_grad_all, counts.data(), displs.data(), MPI_FLOAT,  // EXPECT: missing_sync
                server, MPI_COMM_WORLD);
    if (rank == server) sgd_update<<<(ntotal + bs - 1) / bs, bs, 0, s>>>(d_table, d_grad_all, lr, ntotal);
    cudaStreamSynchronize(s);  // the table is updated before the server scatters it
    MPI_Scatterv(d_table, counts.data(), displs.data(), MPI_FLOAT, d_rows_local, nloc, MPI_FLOAT, server,
                 MPI_COMM_WORLD);

    if (epoch % 10 == 9) {
      cudaMemsetAsync(d_loss, 0, sizeof(float), s);
      sq_error<<<(nloc + bs - 1) / bs, bs, 0, s>>>(d_rows_local, d_targets, d_loss, nloc);
      cudaMemcpyAsync(h_loss, d_loss, sizeof(float), cudaMemcpyDeviceToHost, s);
      cudaStreamSynchronize(s);
      float total_loss = 0.0f;
      MPI_Reduce(h_loss, &total_loss, 1, MPI_FLOAT, MPI_SUM, server, MPI_COMM_WORLD);
      if (rank == server) printf("epoch %d loss %.6f\n", epoch, total_loss / ntotal);
    }
  }

  cudaStreamSynchronize(s);
  cudaFree(d_table);
  cudaFree(d_grad_all);
  cudaFree(d_rows_local);
  cudaFree(d_targets);
  cudaFree(d_grad_local);
  cudaFree(d_loss);
  cudaFreeHost(h_loss);
  cudaStreamDestroy(s);
  MPI_Finalize();
  return 0;
}
