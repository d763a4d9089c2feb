// ghost cells of a 1D decomposition, exchanged with nonblocking MPI on device buffers (s321)
#pragma once
#include <mpi.h>
#include <cuda_runtime.h>

class GhostLayer {
 public:
  GhostLayer(int width, MPI_Comm comm) : width_(width), comm_(comm) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm_, &rank);
    MPI_Comm_size(comm_, &size);
    left_ = rank > 0 ? rank - 1 : MPI_PROC_NULL;  // physical boundary: ghosts stay zero
    right_ = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    cudaMalloc(&d_left_, width_ * sizeof(float));
    cudaMalloc(&d_right_, width_ * sizeof(float));
    cudaMemset(d_left_, 0, width_ * sizeof(float));
    cudaMemset(d_right_, 0, width_ * sizeof(float));
    cudaDeviceSynchronize();
    for (int i = 0; i < 4; ++i) reqs_[i] = MPI_REQUEST_NULL;
  }

  ~GhostLayer() {
    end_exchange();
    cudaDeviceSynchronize();  // kernels may still read the ghosts
    cudaFree(d_left_);
    cudaFree(d_right_);
  }

  // d_u (n values) must be complete on the device
  void begin_exchange(const float* d_u, int n) {
    MPI_Irecv(d_left_, width_, MPI_FLOAT, left_, 0, comm_, &reqs_[0]);
    MPI_Irecv(d_right_, width_, MPI_FLOAT, right_, 1, comm_, &reqs_[1]);
    MPI_Isend(d_u, width_, MPI_FLOAT, left_, 1, comm_, &reqs_[2]);
    MPI_Isend(d_u + (n - width_), width_, MPI_FLOAT, right_, 0, comm_, &reqs_[3]);
  }

  void end_exchange() { MPI_Waitall(4, reqs_, MPI_STATUSES_IGNORE); }

  const float* left() const { return d_left_; }
  const float* right() const { return d_right_; }

 private:
  int width_;
  MPI_Comm comm_;
  int left_, right_;
  float* d_left_;
  float* d_right_;
  MPI_Request reqs_[4];
};
