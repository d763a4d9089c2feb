// case: a distributed upwind-advection SpMV posts MPI_Irecv for its ghost entries into d_ghost, calls MPI_Testall once to kick progress (its flag only counts late arrivals), then launches the boundary-row kernel that reads d_ghost before MPI_Waitall completes the receive.
// expect: missing_sync=1
#include <cmath>
#include <cstdio>
#include <vector>
#include <mpi.h>
#include <cuda_runtime.h>

#define GHOSTS 2  // second-order upwind: row r reads x[r-2], x[r-1], x[r]

__global__ void init_x(float* x, int n, int first) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 1.0f + 0.5f * __sinf(0.001f * (float)(first + i));
}

// rows whose columns are all local
__global__ void spmv_interior(const int* rowptr, const int* col, const float* val, const float* x, float* y, int r0,
                              int r1) {
  int r = r0 + blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= r1) return;
  float acc = 0.0f;
  for (int e = rowptr[r]; e < rowptr[r + 1]; ++e) acc += val[e] * x[col[e]];
  y[r] = acc;
}

// the first GHOSTS rows: a negative column -(k+1) is ghost slot k
__global__ void spmv_boundary(const int* rowptr, const int* col, const float* val, const float* x,
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

__global__ void sq_norm(const float* y, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, (double)y[i] * y[i]);
}

__global__ void scale(const float* y, float* x, float f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = f * y[i];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = 1 << 18, first = rank * n;
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;  // periodic ring

  // local CSR of the upwind operator; ghosts are the left neighbour's last GHOSTS entries
  std::vector<int> rowptr(n + 1), col;
  std::vector<float> val;
  const float coef[3] = {0.5f, -2.0f, 1.5f};
  for (int r = 0; r < n; ++r) {
    rowptr[r] = (int)col.size();
    for (int k = 0; k < 3; ++k) {
      int c = r - 2 + k;
      col.push_back(c >= 0 ? c : -(GHOSTS + c) - 1);
      val.push_back(coef[k]);
    }
  }
  rowptr[n] = (int)col.size();
  const int nnz = (int)col.size();

  int *d_rowptr, *d_col;
  float *d_val, *d_x, *d_y, *d_ghost;
  double *d_norm, *h_norm;
  cudaMalloc(&d_rowptr, (n + 1) * sizeof(int));
  cudaMalloc(&d_col, nnz * sizeof(int));
  cudaMalloc(&d_val, nnz * sizeof(float));
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  cudaMalloc(&d_ghost, GHOSTS * sizeof(float));
  cudaMalloc(&d_norm, sizeof(double));
  cudaMallocHost(&h_norm, sizeof(double));
  cudaMemcpy(d_rowptr, rowptr.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_col, col.data(), nnz * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_val, val.data(), nnz * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(d_ghost, 0, GHOSTS * sizeof(float));
  init_x<<<(n + 255) / 256, 256>>>(d_x, n, first);
  cudaDeviceSynchronize();

  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  int late_arrivals = 0;
  for (int it = 0; it < 50; ++it) {
    MPI_Request reqs[2];
    MPI_Irecv(d_ghost, GHOSTS, MPI_FLOAT, left, 7, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(d_x + (n - GHOSTS), GHOSTS, MPI_FLOAT, right, 7, MPI_COMM_WORLD, &reqs[1]);
    spmv_interior<<<(n - GHOSTS + 255) / 256, 256, 0, s>>>(d_rowptr, d_col, d_val, d_x, d_y, GHOSTS, n);

    int arrived = 0;
    MPI_Testall(2, reqs, &arrived, MPI_STATUSES_IGNORE);  // let the library progress the exchange
    if (!arrived) ++late_arrivals;
    spmv_boundary<<<1, 32, 0, s>>>(d_rowptr, d_col, d_val, d_x, d_ghost, d_y, GHOSTS);  // EXPECT: missing_sync
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);

    cudaMemsetAsync(d_norm, 0, sizeof(double), s);
    sq_norm<<<(n + 255) / 256, 256, 0, s>>>(d_y, d_norm, n);
    cudaMemcpyAsync(h_norm, d_norm, sizeof(double), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    MPI_Allreduce(MPI_IN_PLACE, h_norm, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    scale<<<(n + 255) / 256, 256, 0, s>>>(d_y, d_x, (float)(1.0 / sqrt(h_norm[0])), n);
    cudaStreamSynchronize(s);
    if (rank == 0 && it % 10 == 0) printf("it %d |Ax| = %.6f\n", it, sqrt(h_norm[0]));
  }
  if (rank == 0) printf("ghosts late in %d of 50 iterations\n", late_arrivals);

  cudaFree(d_rowptr);
  cudaFree(d_col);
  cudaFree(d_val);
  cudaFree(d_x);
  cudaFree(d_y);
  cudaFree(d_ghost);
  cudaFree(d_norm);
  cudaFreeHost(h_norm);
  cudaStreamDestroy(s);
  MPI_Finalize();
  return 0;
}
