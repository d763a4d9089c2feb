// case: near miss of the two-stream lattice Boltzmann step: the boundary stream records an event after packing the edge rows and the host waits on that event before posting MPI_Isend, while the interior stream keeps working on other rows; MPI_Waitall precedes the unpack kernel.
// expect: none
#include <cstdio>
#include <mpi.h>
#include <cuda_runtime.h>

// D2Q5 advection-diffusion of a scalar C; layout f[q * plane + row * nx + x], rows 0 and ny + 1 are ghosts
__constant__ int k_cx[5] = {0, 1, -1, 0, 0};
__constant__ int k_cy[5] = {0, 0, 0, 1, -1};
__constant__ float k_w[5] = {1.f / 3, 1.f / 6, 1.f / 6, 1.f / 6, 1.f / 6};

__global__ void ad_init(float* f, int nx, int rows_total, size_t plane, int row0) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
  if (x >= nx || r >= rows_total) return;
  float c = ((x / 32 + (row0 + r) / 32) % 2) ? 1.0f : 0.0f;
  for (int q = 0; q < 5; ++q) f[q * plane + (size_t)r * nx + x] = k_w[q] * c;
}

__global__ void ad_step(const float* f_rows, float* fn_rows, int nx, size_t plane, int nrows, float omega, float ux,
                        float uy) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
  if (x >= nx || r >= nrows) return;
  float fin[5], c = 0.0f;
  for (int q = 0; q < 5; ++q) {
    fin[q] = f_rows[q * plane + (long)(r - k_cy[q]) * nx + (x - k_cx[q] + nx) % nx];
    c += fin[q];
  }
  for (int q = 0; q < 5; ++q) {
    float eq = k_w[q] * c * (1.0f + 3.0f * (k_cx[q] * ux + k_cy[q] * uy));
    fn_rows[q * plane + (size_t)r * nx + x] = fin[q] - omega * (fin[q] - eq);
  }
}

__global__ void ad_pack(const float* row_lo, const float* row_hi, float* lo, float* hi, int nx, size_t plane) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 5 * nx) return;
  lo[i] = row_lo[(i / nx) * plane + i % nx];
  hi[i] = row_hi[(i / nx) * plane + i % nx];
}

__global__ void ad_unpack(const float* lo, const float* hi, float* ghost_lo, float* ghost_hi, int nx, size_t plane) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 5 * nx) return;
  ghost_lo[(i / nx) * plane + i % nx] = lo[i];
  ghost_hi[(i / nx) * plane + i % nx] = hi[i];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int nx = 1024, ny = 256, count = 5 * nx;
  const size_t plane = (size_t)(ny + 2) * nx, bytes = 5 * plane * sizeof(float), row_bytes = count * sizeof(float);
  const int up = (rank + 1) % size, down = (rank + size - 1) % size;

  cudaStream_t boundary, interior;
  cudaStreamCreateWithFlags(&boundary, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&interior, cudaStreamNonBlocking);
  cudaEvent_t packed;
  cudaEventCreateWithFlags(&packed, cudaEventDisableTiming);

  float *d_f, *d_fn, *d_send_lo, *d_send_hi, *d_recv_lo, *d_recv_hi;
  cudaMalloc(&d_f, bytes);
  cudaMalloc(&d_fn, bytes);
  cudaMalloc(&d_send_lo, row_bytes);
  cudaMalloc(&d_send_hi, row_bytes);
  cudaMalloc(&d_recv_lo, row_bytes);
  cudaMalloc(&d_recv_hi, row_bytes);
  ad_init<<<dim3(nx / 128, ny + 2), 128, 0, interior>>>(d_f, nx, ny + 2, plane, rank * ny - 1);
  ad_init<<<dim3(nx / 128, ny + 2), 128, 0, interior>>>(d_fn, nx, ny + 2, plane, rank * ny - 1);
  cudaMemsetAsync(d_recv_lo, 0, row_bytes, interior);
  cudaMemsetAsync(d_recv_hi, 0, row_bytes, interior);
  cudaStreamSynchronize(interior);

  const float omega = 1.5f, ux = 0.05f, uy = 0.02f;
  for (int t = 0; t < 400; ++t) {
    ad_step<<<dim3(nx / 128, 1), 128, 0, boundary>>>(d_f + nx, d_fn + nx, nx, plane, 1, omega, ux, uy);
    ad_step<<<dim3(nx / 128, 1), 128, 0, boundary>>>(d_f + (size_t)ny * nx, d_fn + (size_t)ny * nx, nx, plane, 1, omega, ux, uy);
    ad_pack<<<(count + 255) / 256, 256, 0, boundary>>>(d_fn + nx, d_fn + (size_t)ny * nx, d_send_lo, d_send_hi, nx, plane);
    cudaEventRecord(packed, boundary);
    ad_step<<<dim3(nx / 128, ny - 2), 128, 0, interior>>>(d_f + 2 * nx, d_fn + 2 * nx, nx, plane, ny - 2, omega, ux, uy);

    cudaEventSynchronize(packed);  // edge rows packed; the interior is still running
    MPI_Request reqs[4];
    MPI_Irecv(d_recv_lo, count, MPI_FLOAT, down, 1, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(d_recv_hi, count, MPI_FLOAT, up, 2, MPI_COMM_WORLD, &reqs[1]);
    MPI_Isend(d_send_lo, count, MPI_FLOAT, down, 2, MPI_COMM_WORLD, &reqs[2]);
    MPI_Isend(d_send_hi, count, MPI_FLOAT, up, 1, MPI_COMM_WORLD, &reqs[3]);
    MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
    ad_unpack<<<(count + 255) / 256, 256, 0, boundary>>>(d_recv_lo, d_recv_hi, d_fn, d_fn + (size_t)(ny + 1) * nx, nx, plane);

    cudaStreamSynchronize(boundary);
    cudaStreamSynchronize(interior);
    float* tmp = d_f;
    d_f = d_fn;
    d_fn = tmp;
  }

  float probe[5];
  for (int q = 0; q < 5; ++q)
    cudaMemcpy(&probe[q], d_f + q * plane + (size_t)(ny / 2) * nx + nx / 2, sizeof(float), cudaMemcpyDeviceToHost);
  float c_mid = probe[0] + probe[1] + probe[2] + probe[3] + probe[4];
  if (rank == 0) printf("C at the centre of rank 0: %.5f\n", c_mid);

  cudaFree(d_f);
  cudaFree(d_fn);
  cudaFree(d_send_lo);
  cudaFree(d_send_hi);
  cudaFree(d_recv_lo);
  cudaFree(d_recv_hi);
  cudaEventDestroy(packed);
  cudaStreamDestroy(boundary);
  cudaStreamDestroy(interior);
  MPI_Finalize();
  return 0;
}
