// case: a slab-decomposed 2D FFT packs its transpose blocks with a kernel on a non-blocking stream and hands d_send to MPI_Alltoall with no stream synchronize, so the library may read the blocks before the pack kernel wrote them.
// expect: missing_sync=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <mpi.h>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                             \
    }                                                                           \
  } while (0)

__global__ void init_slab(float2* a, int rows, int ny, int row0) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y;
  if (i < rows && j < ny) {
    float x = (float)(row0 + i), y = (float)j;
    a[i * ny + j] = make_float2(__sinf(0.1f * x) * __cosf(0.05f * y), 0.0f);
  }
}

// naive DFT along the contiguous dimension of every local row
__global__ void dft_rows(const float2* in, float2* out, int rows, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y;
  if (i >= rows || k >= n) return;
  float2 acc = make_float2(0.0f, 0.0f);
  for (int j = 0; j < n; ++j) {
    float s, c;
    __sincosf(-6.2831853f * (float)((k * j) % n) / (float)n, &s, &c);
    float2 v = in[i * n + j];
    acc.x += v.x * c - v.y * s;
    acc.y += v.x * s + v.y * c;
  }
  out[i * n + k] = acc;
}

// block p of the send buffer holds columns [p*cols, (p+1)*cols) of every local row, transposed
__global__ void pack_transpose(const float2* a, float2* send, int rows, int ny, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y;
  if (i >= rows || j >= ny) return;
  int p = j / cols, jc = j % cols;
  send[p * rows * cols + jc * rows + i] = a[i * ny + j];
}

// block p of the receive buffer came from rank p: its rows of our columns
__global__ void unpack_blocks(const float2* recv, float2* b, int rows, int cols, int nprocs) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int total = nprocs * rows * cols;
  if (idx >= total) return;
  int p = idx / (rows * cols);
  int rem = idx % (rows * cols);
  int jc = rem / rows, i = rem % rows;
  b[jc * (nprocs * rows) + p * rows + i] = recv[idx];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nprocs = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

  const int n = 1024;
  if (n % nprocs != 0) {
    if (rank == 0) fprintf(stderr, "n=%d is not divisible by %d ranks\n", n, nprocs);
    MPI_Finalize();
    return 1;
  }
  const int rows = n / nprocs;  // local rows before the transpose, local columns after it
  const size_t elems = (size_t)rows * n;
  const size_t bytes = elems * sizeof(float2);

  int ndev = 0;
  CUDA_CHECK(cudaGetDeviceCount(&ndev));
  CUDA_CHECK(cudaSetDevice(rank % ndev));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  float2 *d_slab, *d_freq, *d_send, *d_recv, *d_pencil;
  CUDA_CHECK(cudaMalloc(&d_slab, bytes));
  CUDA_CHECK(cudaMalloc(&d_freq, bytes));
  CUDA_CHECK(cudaMalloc(&d_send, bytes));
  CUDA_CHECK(cudaMalloc(&d_recv, bytes));
  CUDA_CHECK(cudaMalloc(&d_pencil, bytes));

  dim3 block(256);
  dim3 grid_rows((n + 255) / 256, rows);
  init_slab<<<grid_rows, block, 0, stream>>>(d_slab, rows, n, rank * rows);
  CUDA_CHECK(cudaMemsetAsync(d_recv, 0, bytes, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));

  const int nsteps = 4;
  double t0 = MPI_Wtime();
  for (int step = 0; step < nsteps; ++step) {
    dft_rows<<<grid_rows, block, 0, stream>>>(d_slab, d_freq, rows, n);
    pack_transpose<<<grid_rows, block, 0, stream>>>(d_freq, d_send, rows, n, rows);
    // every rank sends one rows x rows block of complex values to every rank
    MPI_Alltoall(d_send, 2 * rows * rows, MPI_FLOAT, d_recv, 2 * rows * rows, MPI_FLOAT, MPI_COMM_WORLD);  // EXPECT: missing_sync
    unpack_blocks<<<(unsigned)((elems + 255) / 256), block, 0, stream>>>(d_recv, d_pencil, rows, rows, nprocs);
    dft_rows<<<grid_rows, block, 0, stream>>>(d_pencil, d_slab, rows, n);
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  double t1 = MPI_Wtime();

  std::vector<float2> h_out(elems);
  CUDA_CHECK(cudaMemcpy(h_out.data(), d_slab, bytes, cudaMemcpyDeviceToHost));
  double local = 0.0, total = 0.0;
  for (size_t i = 0; i < elems; ++i) local += (double)h_out[i].x * h_out[i].x + (double)h_out[i].y * h_out[i].y;
  MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("energy %.6e, %.3f ms per transform\n", total, 1e3 * (t1 - t0) / nsteps);

  CUDA_CHECK(cudaFree(d_slab));
  CUDA_CHECK(cudaFree(d_freq));
  CUDA_CHECK(cudaFree(d_send));
  CUDA_CHECK(cudaFree(d_recv));
  CUDA_CHECK(cudaFree(d_pencil));
  CUDA_CHECK(cudaStreamDestroy(stream));
  MPI_Finalize();
  return 0;
}
