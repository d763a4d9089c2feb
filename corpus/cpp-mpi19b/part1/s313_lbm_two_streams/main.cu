// case: a y-decomposed D2Q9 lattice Boltzmann step computes and packs its edge rows on a boundary stream and the interior on a second non-blocking stream, then synchronizes the interior stream instead of the boundary one, so the MPI_Isend in lbm_halo.h reads d_send_lo while the pack kernel may still write it.
// expect: missing_sync=1
#include <cstdio>
#include <mpi.h>
#include <cuda_runtime.h>
#include "lbm_kernels.cuh"
#include "lbm_halo.h"

struct LbmStreams {
  cudaStream_t boundary;
  cudaStream_t interior;
};

static void lbm_step(const float* d_f, float* d_fn, LbmHalo& h, LbmStreams& st, int nx, int ny, float omega) {
  const size_t plane = (size_t)(ny + 2) * nx;
  const int bs = 128;
  dim3 row_grid((nx + bs - 1) / bs, 1), interior_grid((nx + bs - 1) / bs, ny - 2);
  const int pack_blocks = (9 * nx + 255) / 256;

  // edge rows first so that their halo can travel while the interior is computed
  collide_stream<<<row_grid, bs, 0, st.boundary>>>(d_f + nx, d_fn + nx, nx, plane, 1, omega);
  collide_stream<<<row_grid, bs, 0, st.boundary>>>(d_f + (size_t)ny * nx, d_fn + (size_t)ny * nx, nx, plane, 1, omega);
  pack_rows<<<pack_blocks, 256, 0, st.boundary>>>(d_fn + nx, d_fn + (size_t)ny * nx, h.d_send_lo, h.d_send_hi, nx, plane);
  collide_stream<<<interior_grid, bs, 0, st.interior>>>(d_f + 2 * nx, d_fn + 2 * nx, nx, plane, ny - 2, omega);

  cudaStreamSynchronize(st.interior);  // packed rows are ready for MPI
  halo_post(h);
  halo_wait(h);
  unpack_rows<<<pack_blocks, 256, 0, st.boundary>>>(h.d_recv_lo, h.d_recv_hi, d_fn, d_fn + (size_t)(ny + 1) * nx, nx, plane);

  cudaStreamSynchronize(st.boundary);
  cudaStreamSynchronize(st.interior);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int nx = 512, ny = 128, steps = 500;
  const float omega = 1.2f;
  const size_t plane = (size_t)(ny + 2) * nx, bytes = 9 * plane * sizeof(float);

  LbmStreams st;
  cudaStreamCreateWithFlags(&st.boundary, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&st.interior, cudaStreamNonBlocking);
  LbmHalo halo;
  halo_init(halo, nx, rank, size);

  float *d_fa, *d_fb;
  cudaMalloc(&d_fa, bytes);
  cudaMalloc(&d_fb, bytes);
  dim3 all_rows((nx + 127) / 128, ny + 2);
  lbm_init<<<all_rows, 128, 0, st.interior>>>(d_fa, nx, ny + 2, plane, rank * ny - 1);
  lbm_init<<<all_rows, 128, 0, st.interior>>>(d_fb, nx, ny + 2, plane, rank * ny - 1);
  cudaStreamSynchronize(st.interior);

  float* d_f = d_fa;
  float* d_fn = d_fb;
  for (int t = 0; t < steps; ++t) {
    lbm_step(d_f, d_fn, halo, st, nx, ny, omega);
    float* tmp = d_f;
    d_f = d_fn;
    d_fn = tmp;
  }

  double* d_mass;
  cudaMalloc(&d_mass, sizeof(double));
  cudaMemsetAsync(d_mass, 0, sizeof(double), st.interior);
  lbm_mass<<<dim3((nx + 127) / 128, ny), 128, 0, st.interior>>>(d_f + nx, nx, plane, ny, d_mass);
  cudaStreamSynchronize(st.interior);
  double mass = 0.0, total = 0.0;
  cudaMemcpy(&mass, d_mass, sizeof(double), cudaMemcpyDeviceToHost);
  MPI_Reduce(&mass, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("mass after %d steps: %.6f\n", steps, total);

  cudaFree(d_mass);
  cudaFree(d_fa);
  cudaFree(d_fb);
  halo_destroy(halo);
  cudaStreamDestroy(st.boundary);
  cudaStreamDestroy(st.interior);
  MPI_Finalize();
  return 0;
}
