// case: out of scope for relies_on_implicit_sync: the host reads managed k-means assignments after only a cudaMalloc (for the next stage), which is not a freeing call; that is a plain missing_sync
// expect: missing_sync=1
#include <cfloat>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t e = (call);                                                      \
    if (e != cudaSuccess) {                                                      \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      return EXIT_FAILURE;                                                       \
    }                                                                            \
  } while (0)

constexpr int kDim = 4;

__global__ void assign_clusters(const float* __restrict__ pts, const float* __restrict__ centroids,
                                int* __restrict__ label, int n, int k) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float best = FLT_MAX;
  int arg = 0;
  for (int c = 0; c < k; ++c) {
    float d = 0.f;
    for (int j = 0; j < kDim; ++j) {
      const float t = pts[i * kDim + j] - centroids[c * kDim + j];
      d += t * t;
    }
    if (d < best) {
      best = d;
      arg = c;
    }
  }
  label[i] = arg;
}

__global__ void accumulate_centroids(const float* __restrict__ pts, const int* __restrict__ label,
                                     float* __restrict__ sums, int* __restrict__ counts, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int c = label[i];
  for (int j = 0; j < kDim; ++j) atomicAdd(&sums[c * kDim + j], pts[i * kDim + j]);
  atomicAdd(&counts[c], 1);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : (1 << 20);
  const int k = 8;

  std::vector<float> pts(size_t(n) * kDim), cent(k * kDim);
  for (size_t i = 0; i < pts.size(); ++i) pts[i] = float((i * 2654435761u) % 1000) / 100.f;
  for (int c = 0; c < k * kDim; ++c) cent[c] = pts[c * 997 % pts.size()];

  float *d_pts = nullptr, *d_cent = nullptr;
  int* labels = nullptr;
  CHECK(cudaMalloc(&d_pts, pts.size() * sizeof(float)));
  CHECK(cudaMalloc(&d_cent, cent.size() * sizeof(float)));
  CHECK(cudaMallocManaged(&labels, n * sizeof(int)));
  CHECK(cudaMemcpy(d_pts, pts.data(), pts.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_cent, cent.data(), cent.size() * sizeof(float), cudaMemcpyHostToDevice));

  const int threads = 256, blocks = (n + threads - 1) / threads;
  assign_clusters<<<blocks, threads>>>(d_pts, d_cent, labels, n, k);
  CHECK(cudaGetLastError());

  // Buffers for the centroid update.
  float* d_sums = nullptr;
  int* d_counts = nullptr;
  CHECK(cudaMalloc(&d_sums, k * kDim * sizeof(float)));
  CHECK(cudaMalloc(&d_counts, k * sizeof(int)));

  std::vector<int> histogram(k, 0);
  for (int i = 0; i < n; ++i) ++histogram[labels[i]];  // EXPECT: missing_sync
  std::printf("cluster 0 holds %d points\n", histogram[0]);

  CHECK(cudaMemset(d_sums, 0, k * kDim * sizeof(float)));
  CHECK(cudaMemset(d_counts, 0, k * sizeof(int)));
  accumulate_centroids<<<blocks, threads>>>(d_pts, labels, d_sums, d_counts, n);
  CHECK(cudaGetLastError());
  std::vector<float> sums(k * kDim);
  std::vector<int> counts(k);
  CHECK(cudaMemcpy(sums.data(), d_sums, sums.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(counts.data(), d_counts, counts.size() * sizeof(int), cudaMemcpyDeviceToHost));
  for (int c = 0; c < k; ++c)
    std::printf("centroid %d: %.3f (%d points)\n", c, counts[c] ? sums[c * kDim] / counts[c] : 0.f, counts[c]);

  CHECK(cudaFree(d_pts));
  CHECK(cudaFree(d_cent));
  CHECK(cudaFree(d_sums));
  CHECK(cudaFree(d_counts));
  CHECK(cudaFree(labels));
  return 0;
}
