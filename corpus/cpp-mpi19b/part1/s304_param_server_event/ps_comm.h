// shard layout and the collectives of the momentum parameter server (s304)
#pragma once
#include <vector>
#include <mpi.h>
#include <cuda_runtime.h>

struct PsLayout {
  int rank, size, root;
  int nparams;             // whole vector, held by the server
  std::vector<int> counts; // floats per worker shard
  std::vector<int> displs;
  int mine() const { return counts[rank]; }
};

static PsLayout ps_layout(MPI_Comm comm, int nparams) {
  PsLayout L;
  MPI_Comm_rank(comm, &L.rank);
  MPI_Comm_size(comm, &L.size);
  L.root = 0;
  L.nparams = nparams;
  L.counts.resize(L.size);
  L.displs.resize(L.size);
  int off = 0;
  for (int r = 0; r < L.size; ++r) {
    // the server keeps a smaller shard: it also runs the update
    int share = (r == L.root) ? nparams / (2 * L.size) : 0;
    L.counts[r] = share;
    off += share;
  }
  int rest = nparams - off, workers = L.size > 1 ? L.size - 1 : 1;
  for (int r = 0; r < L.size; ++r) {
    if (r == L.root && L.size > 1) continue;
    L.counts[r] += rest / workers + ((r - (L.size > 1 ? 1 : 0)) < rest % workers ? 1 : 0);
  }
  for (int r = 0, d = 0; r < L.size; ++r) {
    L.displs[r] = d;
    d += L.counts[r];
  }
  return L;
}

// the gradient shard must be complete on the device: wait for the event recorded after its kernel
static void ps_gather_grads(const PsLayout& L, const float* d_grad_shard, float* d_grad_full, cudaEvent_t grad_ready) {
  cudaEventSynchronize(grad_ready);
  MPI_Gatherv(d_grad_shard, L.mine(), MPI_FLOAT, d_grad_full, L.counts.data(), L.displs.data(), MPI_FLOAT,
              L.root, MPI_COMM_WORLD);
}

static void ps_scatter_params(const PsLayout& L, const float* d_params_full, float* d_params_shard, cudaEvent_t params_ready) {
  cudaEventSynchronize(params_ready);
  MPI_Scatterv(d_params_full, L.counts.data(), L.displs.data(), MPI_FLOAT, d_params_shard, L.mine(), MPI_FLOAT,
               L.root, MPI_COMM_WORLD);
}
