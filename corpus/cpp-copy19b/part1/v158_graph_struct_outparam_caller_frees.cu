// case: a graph loader that allocates CSR device arrays into a struct passed by out-parameter and a degree buffer returned to the caller, and the caller releases both through destroy_graph and cudaFree
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

struct DeviceGraph {
  int num_vertices;
  int num_edges;
  int *row_offsets;
  int *col_indices;
};

static void load_ring_graph(int nv, DeviceGraph *g) {
  std::vector<int> offsets(nv + 1), cols(2 * nv);
  for (int v = 0; v < nv; ++v) {
    offsets[v] = 2 * v;
    cols[2 * v] = (v + nv - 1) % nv;
    cols[2 * v + 1] = (v + 1) % nv;
  }
  offsets[nv] = 2 * nv;
  g->num_vertices = nv;
  g->num_edges = 2 * nv;
  CUDA_CHECK(cudaMalloc(&g->row_offsets, (nv + 1) * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&g->col_indices, 2 * nv * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(g->row_offsets, offsets.data(), (nv + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(g->col_indices, cols.data(), 2 * nv * sizeof(int), cudaMemcpyHostToDevice));
}

static void destroy_graph(DeviceGraph *g) {
  CUDA_CHECK(cudaFree(g->row_offsets));
  CUDA_CHECK(cudaFree(g->col_indices));
  g->row_offsets = g->col_indices = nullptr;
}

__global__ void out_degree(const int *row_offsets, int *degree, int nv) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) degree[v] = row_offsets[v + 1] - row_offsets[v];
}

static int *compute_degrees(const DeviceGraph &g) {
  int *d_degree = nullptr;
  CUDA_CHECK(cudaMalloc(&d_degree, g.num_vertices * sizeof(int)));
  out_degree<<<(g.num_vertices + 255) / 256, 256>>>(g.row_offsets, d_degree, g.num_vertices);
  CUDA_CHECK(cudaGetLastError());
  return d_degree;
}

int main() {
  DeviceGraph g;
  load_ring_graph(1 << 20, &g);

  int *d_degree = compute_degrees(g);
  std::vector<int> degree(g.num_vertices);
  CUDA_CHECK(cudaMemcpy(degree.data(), d_degree, g.num_vertices * sizeof(int), cudaMemcpyDeviceToHost));

  long long total = 0;
  for (int d : degree) total += d;
  printf("%d vertices, %lld edge endpoints\n", g.num_vertices, total);

  CUDA_CHECK(cudaFree(d_degree));
  destroy_graph(&g);
  return 0;
}
