// case: a LiDAR sweep stager picks write-combined host flags only under #ifdef LIDAR_UPLOAD_ONLY, which the platform header block defines and then #undefs before the test (this node reads results back), so the default build allocates a cached portable buffer and the host reads of the voxel counts are fine; correct.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

// --- platform configuration -------------------------------------------------
#define LIDAR_UPLOAD_ONLY 1      // edge nodes only upload sweeps ...
#define LIDAR_NODE_READS_BACK 1  // ... but this build also runs the occupancy readback
#if LIDAR_NODE_READS_BACK
#undef LIDAR_UPLOAD_ONLY         // the readback needs cached host memory
#endif

#ifdef LIDAR_UPLOAD_ONLY
#define LIDAR_HOST_FLAGS (cudaHostAllocWriteCombined | cudaHostAllocPortable)
#else
#define LIDAR_HOST_FLAGS cudaHostAllocPortable
#endif
// -----------------------------------------------------------------------------

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

struct Point { float x, y, z, intensity; };
constexpr int kGrid = 128;  // 128 x 128 occupancy cells

__global__ void voxelize(const Point* pts, int n, unsigned int* cells) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int cx = min(max(int((pts[i].x + 64.f) / 1.0f), 0), kGrid - 1);
  int cy = min(max(int((pts[i].y + 64.f) / 1.0f), 0), kGrid - 1);
  atomicAdd(&cells[cy * kGrid + cx], 1u);
}

int main() {
  const int n = 120000;
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  Point* h_pts = nullptr;
  unsigned int* h_cells = nullptr;
  Point* d_pts = nullptr;
  unsigned int* d_cells = nullptr;
  CUDA_CHECK(cudaHostAlloc(&h_pts, n * sizeof(Point), LIDAR_HOST_FLAGS));
  CUDA_CHECK(cudaHostAlloc(&h_cells, kGrid * kGrid * sizeof(unsigned int), LIDAR_HOST_FLAGS));
  CUDA_CHECK(cudaMalloc(&d_pts, n * sizeof(Point)));
  CUDA_CHECK(cudaMalloc(&d_cells, kGrid * kGrid * sizeof(unsigned int)));

  for (int sweep = 0; sweep < 10; ++sweep) {
    for (int i = 0; i < n; ++i) {
      float a = 0.0000523f * i + 0.01f * sweep;
      h_pts[i] = Point{60.f * std::cos(a) * (i % 7) / 7.f, 60.f * std::sin(a) * (i % 7) / 7.f, 0.f, 1.f};
    }
    CUDA_CHECK(cudaMemcpyAsync(d_pts, h_pts, n * sizeof(Point), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemsetAsync(d_cells, 0, kGrid * kGrid * sizeof(unsigned int), s));
    voxelize<<<(n + 255) / 256, 256, 0, s>>>(d_pts, n, d_cells);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_cells, d_cells, kGrid * kGrid * sizeof(unsigned int), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    int occupied = 0;
    unsigned int densest = 0;
    for (int c = 0; c < kGrid * kGrid; ++c) {
      if (h_cells[c]) ++occupied;
      if (h_cells[c] > densest) densest = h_cells[c];
    }
    std::printf("sweep %d: %d occupied cells, densest %u points\n", sweep, occupied, densest);
  }

  CUDA_CHECK(cudaFree(d_cells));
  CUDA_CHECK(cudaFree(d_pts));
  CUDA_CHECK(cudaFreeHost(h_cells));
  CUDA_CHECK(cudaFreeHost(h_pts));
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}
