// RAII receive: posts MPI_Irecv when made, completes it when it leaves scope (s322)
#pragma once
#include <mpi.h>

class PendingRecv {
 public:
  PendingRecv(float* buf, int count, int src, int tag, MPI_Comm comm) {
    MPI_Irecv(buf, count, MPI_FLOAT, src, tag, comm, &req_);
  }
  ~PendingRecv() { MPI_Wait(&req_, MPI_STATUS_IGNORE); }

  PendingRecv(const PendingRecv&) = delete;
  PendingRecv& operator=(const PendingRecv&) = delete;

 private:
  MPI_Request req_;
};
