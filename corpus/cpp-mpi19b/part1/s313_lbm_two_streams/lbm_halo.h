// halo rows of the y-decomposed lattice (s313): one row of 9 populations to each neighbour
#pragma once
#include <mpi.h>
#include <cuda_runtime.h>

enum { LBM_TAG_UP = 21, LBM_TAG_DOWN = 22 };

struct LbmHalo {
  int count;  // 9 * nx floats per row
  int up, down;
  float *d_send_lo, *d_send_hi, *d_recv_lo, *d_recv_hi;
  MPI_Request reqs[4];
};

inline void halo_init(LbmHalo& h, int nx, int rank, int size) {
  h.count = 9 * nx;
  h.up = (rank + 1) % size;
  h.down = (rank + size - 1) % size;
  size_t bytes = (size_t)h.count * sizeof(float);
  cudaMalloc(&h.d_send_lo, bytes);
  cudaMalloc(&h.d_send_hi, bytes);
  cudaMalloc(&h.d_recv_lo, bytes);
  cudaMalloc(&h.d_recv_hi, bytes);
  cudaMemset(h.d_recv_lo, 0, bytes);
  cudaMemset(h.d_recv_hi, 0, bytes);
  cudaDeviceSynchronize();
  for (int i = 0; i < 4; ++i) h.reqs[i] = MPI_REQUEST_NULL;
}

// the send buffers must hold the packed rows when this is called
inline void halo_post(LbmHalo& h) {
  MPI_Irecv(h.d_recv_lo, h.count, MPI_FLOAT, h.down, LBM_TAG_UP, MPI_COMM_WORLD, &h.reqs[0]);
  MPI_Irecv(h.d_recv_hi, h.count, MPI_FLOAT, h.up, LBM_TAG_DOWN, MPI_COMM_WORLD, &h.reqs[1]);
  MPI_Isend(h.d_send_lo, h.count, MPI_FLOAT, h.down, LBM_TAG_DOWN, MPI_COMM_WORLD, &h.reqs[2]);  // EXPECT: missing_sync
  MPI_Isend(h.d_send_hi, h.count, MPI_FLOAT, h.up, LBM_TAG_UP, MPI_COMM_WORLD, &h.reqs[3]);
}

inline void halo_wait(LbmHalo& h) { MPI_Waitall(4, h.reqs, MPI_STATUSES_IGNORE); }

inline void halo_destroy(LbmHalo& h) {
  cudaFree(h.d_send_lo);
  cudaFree(h.d_send_hi);
  cudaFree(h.d_recv_lo);
  cudaFree(h.d_recv_hi);
}
