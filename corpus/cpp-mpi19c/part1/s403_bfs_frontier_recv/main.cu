// case: Distributed BFS: each level's merge kernel reads the frontier flags received from a neighbour after MPI_Waitall on the send requests and cudaDeviceSynchronize, but before the receive requests are completed.
// expect: missing_sync=1
#include "mpi_cuda_check.h"
#include "bfs_kernels.cuh"

#include <algorithm>
#include <vector>

enum Side { UP = 0, DOWN = 1, NSIDES = 2 };
static const int TAG_FRONTIER = 40;

// Starts the frontier exchange with one neighbour; the requests come back through the
// pointers.
static void post_frontier_exchange(int* d_in, const int* d_out, int w, int peer, MPI_Comm comm,
                                   MPI_Request* rreq, MPI_Request* sreq) {
  CHECK_MPI(MPI_Irecv(d_in, w, MPI_INT, peer, TAG_FRONTIER, comm, rreq));
  CHECK_MPI(MPI_Isend(d_out, w, MPI_INT, peer, TAG_FRONTIER, comm, sreq));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = 0, nranks = 1;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
  int ndev = 0;
  CHECK_CUDA(cudaGetDeviceCount(&ndev));
  CHECK_CUDA(cudaSetDevice(rank % ndev));

  // A total_rows x W grid graph, 4-connected; this rank owns `rows` consecutive rows.
  const int W = 512, rows = 128;
  const int nloc = W * rows, total_rows = rows * nranks, row0 = rank * rows, v0 = row0 * W;
  std::vector<int> h_rowptr(nloc + 1, 0), h_cols;
  h_cols.reserve((size_t)4 * nloc);
  for (int lr = 0; lr < rows; ++lr) {
    for (int c = 0; c < W; ++c) {
      const int g = (row0 + lr) * W + c;
      if (row0 + lr > 0) h_cols.push_back(g - W);
      if (row0 + lr < total_rows - 1) h_cols.push_back(g + W);
      if (c > 0) h_cols.push_back(g - 1);
      if (c < W - 1) h_cols.push_back(g + 1);
      h_rowptr[lr * W + c + 1] = (int)h_cols.size();
    }
  }
  const int nedges = (int)h_cols.size();

  int *d_rowptr, *d_cols, *d_level, *d_discovered;
  unsigned long long* d_remote_marks;
  CHECK_CUDA(cudaMalloc(&d_rowptr, (nloc + 1) * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_cols, nedges * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_level, nloc * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_discovered, sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_remote_marks, sizeof(unsigned long long)));
  CHECK_CUDA(cudaMemcpy(d_rowptr, h_rowptr.data(), (nloc + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_cols, h_cols.data(), nedges * sizeof(int), cudaMemcpyHostToDevice));

  // Per-neighbour state, indexed by side.
  const int peer[NSIDES] = {rank > 0 ? rank - 1 : MPI_PROC_NULL,
                            rank + 1 < nranks ? rank + 1 : MPI_PROC_NULL};
  int* d_out[NSIDES];
  int* d_in[NSIDES];
  MPI_Request rreq[NSIDES], sreq[NSIDES];
  for (int sd = 0; sd < NSIDES; ++sd) {
    CHECK_CUDA(cudaMalloc(&d_out[sd], W * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&d_in[sd], W * sizeof(int)));
  }

  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  init_levels<<<(nloc + 255) / 256, 256, 0, s>>>(d_level, nloc);
  if (rank == 0) set_source<<<1, 1, 0, s>>>(d_level, 0);
  CHECK_CUDA(cudaMemsetAsync(d_remote_marks, 0, sizeof(unsigned long long), s));
  for (int sd = 0; sd < NSIDES; ++sd)  // a missing neighbour (MPI_PROC_NULL) sends nothing
    CHECK_CUDA(cudaMemsetAsync(d_in[sd], 0, W * sizeof(int), s));
  CHECK_CUDA(cudaStreamSynchronize(s));

  int *h_discovered, *h_total;
  CHECK_CUDA(cudaMallocHost(&h_discovered, sizeof(int)));
  CHECK_CUDA(cudaMallocHost(&h_total, sizeof(int)));

  int depth = 0;
  for (;; ++depth) {
    for (int sd = 0; sd < NSIDES; ++sd)
      CHECK_CUDA(cudaMemsetAsync(d_out[sd], 0, W * sizeof(int), s));
    CHECK_CUDA(cudaMemsetAsync(d_discovered, 0, sizeof(int), s));
    expand_frontier<<<(nloc + 255) / 256, 256, 0, s>>>(d_rowptr, d_cols, d_level, nloc, v0, W,
                                                       depth, d_out[UP], d_out[DOWN],
                                                       d_discovered);
    CHECK_CUDA(cudaStreamSynchronize(s));  // outgoing flags are final before MPI reads them

    for (int sd = 0; sd < NSIDES; ++sd)
      post_frontier_exchange(d_in[sd], d_out[sd], W, peer[sd], MPI_COMM_WORLD, &rreq[sd],
                             &sreq[sd]);

    // Statistics while the flags travel: only reads what the sends read.
    count_flags<<<(W + 255) / 256, 256, 0, s>>>(d_out[UP], d_out[DOWN], W, d_remote_marks);

    CHECK_MPI(MPI_Waitall(NSIDES, sreq, MPI_STATUSES_IGNORE));
    CHECK_CUDA(cudaDeviceSynchronize());
    for (int sd = 0; sd < NSIDES; ++sd) {
      const int base = sd == UP ? 0 : nloc - W;
      merge_remote<<<(W + 255) / 256, 256, 0, s>>>(d_in[sd], W, base, d_level, depth,  // EXPECT: missing_sync
                                                   d_discovered);
    }
    CHECK_MPI(MPI_Waitall(NSIDES, rreq, MPI_STATUSES_IGNORE));

    CHECK_CUDA(cudaMemcpyAsync(h_discovered, d_discovered, sizeof(int), cudaMemcpyDeviceToHost, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    CHECK_MPI(MPI_Allreduce(h_discovered, h_total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (*h_total == 0) break;
  }

  // Deepest level reached: the source's eccentricity, (total_rows - 1) + (W - 1).
  int* h_level;
  unsigned long long* h_marks;
  CHECK_CUDA(cudaMallocHost(&h_level, nloc * sizeof(int)));
  CHECK_CUDA(cudaMallocHost(&h_marks, sizeof(unsigned long long)));
  CHECK_CUDA(cudaMemcpyAsync(h_level, d_level, nloc * sizeof(int), cudaMemcpyDeviceToHost, s));
  CHECK_CUDA(cudaMemcpyAsync(h_marks, d_remote_marks, sizeof(unsigned long long),
                             cudaMemcpyDeviceToHost, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  int local_max = -1, local_unreached = 0;
  for (int i = 0; i < nloc; ++i) {
    local_max = std::max(local_max, h_level[i]);
    local_unreached += h_level[i] < 0;
  }
  int global_max = 0, unreached = 0;
  unsigned long long marks = *h_marks, all_marks = 0;
  CHECK_MPI(MPI_Reduce(&local_max, &global_max, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Reduce(&local_unreached, &unreached, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Reduce(&marks, &all_marks, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
  if (rank == 0)
    std::printf("bfs: %d levels (expected %d), %d unreached, %llu remote flags\n", global_max,
                total_rows - 1 + W - 1, unreached, all_marks);

  for (int sd = 0; sd < NSIDES; ++sd) {
    CHECK_CUDA(cudaFree(d_out[sd]));
    CHECK_CUDA(cudaFree(d_in[sd]));
  }
  CHECK_CUDA(cudaFree(d_rowptr));
  CHECK_CUDA(cudaFree(d_cols));
  CHECK_CUDA(cudaFree(d_level));
  CHECK_CUDA(cudaFree(d_discovered));
  CHECK_CUDA(cudaFree(d_remote_marks));
  CHECK_CUDA(cudaFreeHost(h_discovered));
  CHECK_CUDA(cudaFreeHost(h_total));
  CHECK_CUDA(cudaFreeHost(h_level));
  CHECK_CUDA(cudaFreeHost(h_marks));
  CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
