// case: near miss of the ghost-exchanging SpMV: the host launches interior-row chunks while polling MPI_Testall in a loop until the flag says every request is done, and only then launches the boundary kernel that reads d_ghost.
// expect: none
#include <cmath>
#include <cstdio>
#include <vector>
#include <mpi.h>
#include <cuda_runtime.h>

#define GHOSTS 2

__global__ void init_x(float* x, int n, int first) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 1.0f + __cosf(0.002f * (float)(first + i));
}

__global__ void spmv_rows_local(const int* rowptr, const int* col, const float* val, const float* x, float* y,
                                int r0, int r1) {
  int r = r0 + blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= r1) return;
  float acc = 0.0f;
  for (int e = rowptr[r]; e < rowptr[r + 1]; ++e) acc += val[e] * x[col[e]];
  y[r] = acc;
}

__global__ void spmv_rows_ghost(const int* rowptr, const int* col, const float* val, const float* x,
                                const float* ghost, float* y, int nrows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  float acc = 0.0f;
  for (int e = rowptr[r]; e < rowptr[r + 1]; ++e) {
    int c = col[e];
    acc += val[e] * (c >= 0 ? x[c] : ghost[-c - 1]);
  }
  y[r] = acc;
}

__global__ void axpby(const float* y, float* x, float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = a * x[i] + b * y[i];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = 1 << 18, first = rank * n, chunk_rows = 1 << 15;
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;

  std::vector<int> rowptr(n + 1), col;
  std::vector<float> val;
  for (int r = 0; r < n; ++r) {
    rowptr[r] = (int)col.size();
    for (int k = -2; k <= 0; ++k) {
      int c = r + k;
      col.push_back(c >= 0 ? c : -(GHOSTS + c) - 1);
      val.push_back(k == 0 ? 1.5f : (k == -1 ? -2.0f : 0.5f));
    }
  }
  rowptr[n] = (int)col.size();
  const int nnz = (int)col.size();

  int *d_rowptr, *d_col;
  float *d_val, *d_x, *d_y, *d_ghost;
  cudaMalloc(&d_rowptr, (n + 1) * sizeof(int));
  cudaMalloc(&d_col, nnz * sizeof(int));
  cudaMalloc(&d_val, nnz * sizeof(float));
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  cudaMalloc(&d_ghost, GHOSTS * sizeof(float));
  cudaMemcpy(d_rowptr, rowptr.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_col, col.data(), nnz * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_val, val.data(), nnz * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(d_ghost, 0, GHOSTS * sizeof(float));
  init_x<<<(n + 255) / 256, 256>>>(d_x, n, first);
  cudaDeviceSynchronize();

  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  const float dt = 0.1f;
  for (int step = 0; step < 40; ++step) {
    MPI_Request reqs[2];
    MPI_Irecv(d_ghost, GHOSTS, MPI_FLOAT, left, 3, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(d_x + (n - GHOSTS), GHOSTS, MPI_FLOAT, right, 3, MPI_COMM_WORLD, &reqs[1]);

    // overlap: enqueue interior chunks while polling the exchange
    int done = 0, r0 = GHOSTS;
    while (!done) {
      if (r0 < n) {
        int r1 = r0 + chunk_rows < n ? r0 + chunk_rows : n;
        spmv_rows_local<<<(r1 - r0 + 255) / 256, 256, 0, s>>>(d_rowptr, d_col, d_val, d_x, d_y, r0, r1);
        r0 = r1;
      }
      MPI_Testall(2, reqs, &done, MPI_STATUSES_IGNORE);
    }
    if (r0 < n) spmv_rows_local<<<(n - r0 + 255) / 256, 256, 0, s>>>(d_rowptr, d_col, d_val, d_x, d_y, r0, n);
    spmv_rows_ghost<<<1, 32, 0, s>>>(d_rowptr, d_col, d_val, d_x, d_ghost, d_y, GHOSTS);

    axpby<<<(n + 255) / 256, 256, 0, s>>>(d_y, d_x, 1.0f, -dt, n);  // explicit Euler: x -= dt * A x
    cudaStreamSynchronize(s);
  }

  std::vector<float> h_x(n);
  cudaMemcpy(h_x.data(), d_x, n * sizeof(float), cudaMemcpyDeviceToHost);
  double local = 0.0, mass = 0.0;
  for (int i = 0; i < n; ++i) local += h_x[i];
  MPI_Reduce(&local, &mass, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("mass %.6f\n", mass);

  cudaFree(d_rowptr);
  cudaFree(d_col);
  cudaFree(d_val);
  cudaFree(d_x);
  cudaFree(d_y);
  cudaFree(d_ghost);
  cudaStreamDestroy(s);
  MPI_Finalize();
  return 0;
}
