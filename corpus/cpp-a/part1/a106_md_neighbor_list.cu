// case: molecular-dynamics cell/neighbor list; after synchronizing, max_neighbors() indexes the cudaMalloc'd this->d_counts_ on the host and cell_heads() memcpy's out of the device array d_cell_head_ on the host
// expect: host_deref_device_ptr=2
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "md: %s\n", cudaGetErrorString(e_));                 \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

__device__ __forceinline__ int cell_of(float3 p, float inv_cell, int cells_per_dim) {
  int cx = min(cells_per_dim - 1, max(0, int(p.x * inv_cell)));
  int cy = min(cells_per_dim - 1, max(0, int(p.y * inv_cell)));
  int cz = min(cells_per_dim - 1, max(0, int(p.z * inv_cell)));
  return (cz * cells_per_dim + cy) * cells_per_dim + cx;
}

__global__ void bin_atoms(const float3* pos, int n, float inv_cell, int cells_per_dim,
                          int* cell_head, int* next) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int c = cell_of(pos[i], inv_cell, cells_per_dim);
  next[i] = atomicExch(&cell_head[c], i);
}

__global__ void count_neighbors(const float3* pos, int n, float rc2, float inv_cell, int cells_per_dim,
                                const int* cell_head, const int* next, int* counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float3 p = pos[i];
  int cnt = 0;
  int cx = min(cells_per_dim - 1, max(0, int(p.x * inv_cell)));
  int cy = min(cells_per_dim - 1, max(0, int(p.y * inv_cell)));
  int cz = min(cells_per_dim - 1, max(0, int(p.z * inv_cell)));
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        int x = cx + dx, y = cy + dy, z = cz + dz;
        if (x < 0 || y < 0 || z < 0 || x >= cells_per_dim || y >= cells_per_dim || z >= cells_per_dim) continue;
        for (int j = cell_head[(z * cells_per_dim + y) * cells_per_dim + x]; j != -1; j = next[j]) {
          if (j == i) continue;
          float ddx = pos[j].x - p.x, ddy = pos[j].y - p.y, ddz = pos[j].z - p.z;
          if (ddx * ddx + ddy * ddy + ddz * ddz < rc2) ++cnt;
        }
      }
  counts[i] = cnt;
}

class NeighborList {
 public:
  NeighborList(int n_atoms, float box, float cutoff)
      : n_(n_atoms), cutoff_(cutoff), cells_per_dim_(std::max(1, int(box / cutoff))) {
    ncells_ = cells_per_dim_ * cells_per_dim_ * cells_per_dim_;
    inv_cell_ = cells_per_dim_ / box;
    CUDA_CHECK(cudaStreamCreate(&stream_));
    CUDA_CHECK(cudaMalloc(&d_cell_head_, ncells_ * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_next_, n_ * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_counts_, n_ * sizeof(int)));
  }

  ~NeighborList() {
    cudaStreamSynchronize(stream_);
    cudaFree(d_counts_);
    cudaFree(d_next_);
    cudaFree(d_cell_head_);
    cudaStreamDestroy(stream_);
  }

  void build(const float3* d_pos) {
    CUDA_CHECK(cudaMemsetAsync(d_cell_head_, 0xFF, ncells_ * sizeof(int), stream_));
    bin_atoms<<<(n_ + 255) / 256, 256, 0, stream_>>>(d_pos, n_, inv_cell_, cells_per_dim_, d_cell_head_, d_next_);
    count_neighbors<<<(n_ + 255) / 256, 256, 0, stream_>>>(d_pos, n_, cutoff_ * cutoff_, inv_cell_, cells_per_dim_,
                                                          d_cell_head_, d_next_, d_counts_);
    CUDA_CHECK(cudaGetLastError());
  }

  // Used to size the padded neighbor matrix.
  int max_neighbors() {
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    int m = 0;
    for (int i = 0; i < n_; ++i) m = std::max(m, this->d_counts_[i]);  // EXPECT: host_deref_device_ptr
    return m;
  }

  // Debug view of the cell heads for the occupancy histogram.
  std::vector<int> cell_heads() {
    std::vector<int> heads(ncells_);
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::memcpy(heads.data(), d_cell_head_, ncells_ * sizeof(int));  // EXPECT: host_deref_device_ptr
    return heads;
  }

 private:
  int n_;
  float cutoff_;
  int cells_per_dim_;
  int ncells_ = 0;
  float inv_cell_ = 0.f;
  cudaStream_t stream_ = nullptr;
  int* d_cell_head_ = nullptr;
  int* d_next_ = nullptr;
  int* d_counts_ = nullptr;
};

int main() {
  const int n = 32768;
  const float box = 40.f;
  std::vector<float3> h_pos(n);
  for (int i = 0; i < n; ++i)
    h_pos[i] = make_float3(box * (i % 32) / 32.f, box * ((i / 32) % 32) / 32.f, box * (i / 1024) / 32.f);
  float3* d_pos = nullptr;
  CUDA_CHECK(cudaMalloc(&d_pos, n * sizeof(float3)));
  CUDA_CHECK(cudaMemcpy(d_pos, h_pos.data(), n * sizeof(float3), cudaMemcpyHostToDevice));

  NeighborList nl(n, box, 2.5f);
  nl.build(d_pos);
  std::printf("max neighbors: %d\n", nl.max_neighbors());
  std::vector<int> heads = nl.cell_heads();
  int empty = static_cast<int>(std::count(heads.begin(), heads.end(), -1));
  std::printf("empty cells: %d of %zu\n", empty, heads.size());
  cudaFree(d_pos);
  return 0;
}
