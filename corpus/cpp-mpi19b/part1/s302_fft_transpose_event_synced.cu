// case: near miss of the slab FFT transpose: the helper records an event after the pack kernel and waits on it with cudaEventSynchronize before MPI_Alltoall reads d_send, so the blocks are complete when the library reads them.
// expect: none
#include <cstdio>
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

struct Transpose {
  int n, rows, nprocs;
  float2* d_send;
  float2* d_recv;
  cudaEvent_t packed;
};

__global__ void init_slab(float2* a, int rows, int ny, int row0) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y;
  if (i < rows && j < ny) a[i * ny + j] = make_float2(__cosf(0.02f * (row0 + i) + 0.03f * j), 0.0f);
}

__global__ void dft_rows(const float2* in, float2* out, int rows, int n, float sign) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y;
  if (i >= rows || k >= n) return;
  float2 acc = make_float2(0.0f, 0.0f);
  for (int j = 0; j < n; ++j) {
    float s, c;
    __sincosf(sign * 6.2831853f * (float)((k * j) % n) / (float)n, &s, &c);
    float2 v = in[i * n + j];
    acc.x += v.x * c - v.y * s;
    acc.y += v.x * s + v.y * c;
  }
  out[i * n + k] = acc;
}

__global__ void pack_transpose(const float2* a, float2* send, int rows, int ny, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y;
  if (i >= rows || j >= ny) return;
  send[(j / cols) * rows * cols + (j % cols) * rows + i] = a[i * ny + j];
}

__global__ void unpack_blocks(const float2* recv, float2* b, int rows, int cols, int nprocs) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= nprocs * rows * cols) return;
  int p = idx / (rows * cols), rem = idx % (rows * cols);
  b[(rem / rows) * (nprocs * rows) + p * rows + (rem % rows)] = recv[idx];
}

// a -> b with the global matrix transposed across ranks
static void transpose_slabs(Transpose& t, const float2* d_a, float2* d_b, cudaStream_t stream) {
  dim3 block(256), grid((t.n + 255) / 256, t.rows);
  pack_transpose<<<grid, block, 0, stream>>>(d_a, t.d_send, t.rows, t.n, t.rows);
  CUDA_CHECK(cudaEventRecord(t.packed, stream));
  CUDA_CHECK(cudaEventSynchronize(t.packed));
  MPI_Alltoall(t.d_send, 2 * t.rows * t.rows, MPI_FLOAT, t.d_recv, 2 * t.rows * t.rows, MPI_FLOAT,
               MPI_COMM_WORLD);
  int total = t.nprocs * t.rows * t.rows;
  unpack_blocks<<<(total + 255) / 256, block, 0, stream>>>(t.d_recv, d_b, t.rows, t.rows, t.nprocs);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nprocs = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  const int n = 512;
  if (n % nprocs != 0) {
    MPI_Finalize();
    return 1;
  }
  int ndev = 1;
  CUDA_CHECK(cudaGetDeviceCount(&ndev));
  CUDA_CHECK(cudaSetDevice(rank % ndev));

  Transpose t;
  t.n = n;
  t.rows = n / nprocs;
  t.nprocs = nprocs;
  const size_t elems = (size_t)t.rows * n, bytes = elems * sizeof(float2);
  CUDA_CHECK(cudaMalloc(&t.d_send, bytes));
  CUDA_CHECK(cudaMalloc(&t.d_recv, bytes));
  CUDA_CHECK(cudaEventCreateWithFlags(&t.packed, cudaEventDisableTiming));

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float2 *d_x, *d_y;
  CUDA_CHECK(cudaMalloc(&d_x, bytes));
  CUDA_CHECK(cudaMalloc(&d_y, bytes));

  dim3 block(256), grid((n + 255) / 256, t.rows);
  init_slab<<<grid, block, 0, stream>>>(d_x, t.rows, n, rank * t.rows);
  CUDA_CHECK(cudaMemsetAsync(t.d_recv, 0, bytes, stream));
  for (int iter = 0; iter < 3; ++iter) {
    dft_rows<<<grid, block, 0, stream>>>(d_x, d_y, t.rows, n, -1.0f);  // rows
    transpose_slabs(t, d_y, d_x, stream);
    dft_rows<<<grid, block, 0, stream>>>(d_x, d_y, t.rows, n, -1.0f);  // columns
    transpose_slabs(t, d_y, d_x, stream);                                // back to row slabs
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));

  std::vector<float2> h(elems);
  CUDA_CHECK(cudaMemcpy(h.data(), d_x, bytes, cudaMemcpyDeviceToHost));
  double peak = 0.0;
  for (size_t i = 0; i < elems; ++i) peak = h[i].x > peak ? h[i].x : peak;
  double gpeak = 0.0;
  MPI_Allreduce(&peak, &gpeak, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("peak %.4e\n", gpeak);

  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_y));
  CUDA_CHECK(cudaFree(t.d_send));
  CUDA_CHECK(cudaFree(t.d_recv));
  CUDA_CHECK(cudaEventDestroy(t.packed));
  CUDA_CHECK(cudaStreamDestroy(stream));
  MPI_Finalize();
  return 0;
}
