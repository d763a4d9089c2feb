// Level-synchronous BFS kernels over a row-partitioned grid graph.
//
// A rank owns the vertices [v0, v0 + nloc) (whole rows of a W-wide grid). Column indices
// of the local CSR are global vertex ids. A neighbour outside the local range is in the
// row just above (ids v0 - W .. v0 - 1, owned by the rank above) or just below
// (ids v0 + nloc .. v0 + nloc + W - 1, owned by the rank below): one flag per column is
// enough to tell a neighbour rank which of its boundary vertices were reached.
#pragma once
#include <cuda_runtime.h>

__global__ void init_levels(int* level, int nloc) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nloc) level[i] = -1;
}

__global__ void set_source(int* level, int local_index) {
  if (blockIdx.x == 0 && threadIdx.x == 0) level[local_index] = 0;
}

// Visits the vertices at `depth`: local neighbours get depth + 1, remote ones are
// flagged in the outgoing buffer of the rank that owns them.
__global__ void expand_frontier(const int* rowptr, const int* cols, int* level, int nloc,
                                int v0, int w, int depth, int* out_up, int* out_down,
                                int* discovered) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nloc || level[v] != depth) return;
  for (int e = rowptr[v]; e < rowptr[v + 1]; ++e) {
    int lu = cols[e] - v0;
    if (lu >= 0 && lu < nloc) {
      if (atomicCAS(&level[lu], -1, depth + 1) == -1) atomicAdd(discovered, 1);
    } else if (lu < 0) {
      out_up[lu + w] = 1;
    } else {
      out_down[lu - nloc] = 1;
    }
  }
}

// Flags received from a neighbour name the local vertices [base, base + w).
__global__ void merge_remote(const int* in_flags, int w, int base, int* level, int depth,
                             int* discovered) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= w || !in_flags[i]) return;
  if (atomicCAS(&level[base + i], -1, depth + 1) == -1) atomicAdd(discovered, 1);
}

// Statistics: how many remote vertices this rank flagged (reads the outgoing flags).
__global__ void count_flags(const int* out_up, const int* out_down, int w,
                            unsigned long long* total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= w) return;
  int c = out_up[i] + out_down[i];
  if (c) atomicAdd(total, (unsigned long long)c);
}
