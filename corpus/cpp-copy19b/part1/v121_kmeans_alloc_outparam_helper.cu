// case: k-means assignment step whose device buffers start as nullptr and are allocated through a templated out-parameter helper the program defines before any copy or launch
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cfloat>
#include <vector>
#include <cuda_runtime.h>

#define NPOINTS 200000
#define DIM 8
#define K 16
#define BLOCK 256

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

template <typename T>
static void device_alloc(T **p, size_t count) {
  CUDA_CHECK(cudaMalloc((void **)p, count * sizeof(T)));
}

__global__ void assign_clusters(const float *points, const float *centroids, int *labels, int n) {
  __shared__ float c[K * DIM];
  for (int i = threadIdx.x; i < K * DIM; i += blockDim.x) c[i] = centroids[i];
  __syncthreads();
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  float best = FLT_MAX;
  int best_k = 0;
  for (int k = 0; k < K; ++k) {
    float d = 0.f;
    for (int j = 0; j < DIM; ++j) {
      float diff = points[p * DIM + j] - c[k * DIM + j];
      d += diff * diff;
    }
    if (d < best) {
      best = d;
      best_k = k;
    }
  }
  labels[p] = best_k;
}

int main() {
  std::vector<float> h_points(NPOINTS * DIM), h_centroids(K * DIM);
  std::vector<int> h_labels(NPOINTS);
  for (int i = 0; i < NPOINTS * DIM; ++i) h_points[i] = (float)((i * 2654435761u) % 1000) / 100.f;
  for (int k = 0; k < K * DIM; ++k) h_centroids[k] = h_points[k * 97 % (NPOINTS * DIM)];

  float *d_points = nullptr, *d_centroids = nullptr;
  int *d_labels = nullptr;
  device_alloc(&d_points, NPOINTS * DIM);
  device_alloc(&d_centroids, K * DIM);
  device_alloc(&d_labels, NPOINTS);

  CUDA_CHECK(cudaMemcpy(d_points, h_points.data(), sizeof(float) * NPOINTS * DIM, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_centroids, h_centroids.data(), sizeof(float) * K * DIM, cudaMemcpyHostToDevice));

  assign_clusters<<<(NPOINTS + BLOCK - 1) / BLOCK, BLOCK>>>(d_points, d_centroids, d_labels, NPOINTS);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(h_labels.data(), d_labels, sizeof(int) * NPOINTS, cudaMemcpyDeviceToHost));

  std::vector<int> counts(K, 0);
  for (int l : h_labels) counts[l]++;
  for (int k = 0; k < K; ++k) printf("cluster %2d: %d points\n", k, counts[k]);

  CUDA_CHECK(cudaFree(d_points));
  CUDA_CHECK(cudaFree(d_centroids));
  CUDA_CHECK(cudaFree(d_labels));
  return 0;
}
