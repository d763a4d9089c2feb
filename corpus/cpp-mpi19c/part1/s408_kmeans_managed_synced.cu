// case: Distributed k-means on managed memory near miss: cudaStreamSynchronize on the assignment kernel's stream comes before the in-place MPI_Allreduce calls on the managed accumulators.
// expect: none
#include <cuda_runtime.h>
#include <mpi.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#define CHECK_CUDA(x)                                                             \
  do {                                                                            \
    const cudaError_t status_ = (x);                                              \
    if (status_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(status_));   \
      std::exit(EXIT_FAILURE);                                                    \
    }                                                                             \
  } while (0)

#define CHECK_MPI(x)                                                              \
  do {                                                                            \
    const int status_ = (x);                                                      \
    if (status_ != MPI_SUCCESS) {                                                 \
      std::fprintf(stderr, "%s failed: MPI error %d\n", #x, status_);             \
      MPI_Abort(MPI_COMM_WORLD, status_);                                         \
      std::exit(EXIT_FAILURE);                                                    \
    }                                                                             \
  } while (0)

// Assignment step of Lloyd's algorithm: each point goes to its nearest centroid and is
// added to that cluster's running sum. Points are row-major, `dim` floats each.
__global__ void assign_and_accumulate(const float* pts, int n, int dim, const float* centroids,
                                      int k, float* sums, int* counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float* p = pts + (size_t)i * dim;
  int best = 0;
  float best_d = FLT_MAX;
  for (int c = 0; c < k; ++c) {
    float d = 0.f;
    for (int j = 0; j < dim; ++j) {
      float diff = p[j] - centroids[c * dim + j];
      d += diff * diff;
    }
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  for (int j = 0; j < dim; ++j) atomicAdd(&sums[best * dim + j], p[j]);
  atomicAdd(&counts[best], 1);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = 0, nranks = 1;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
  int ndev = 0;
  CHECK_CUDA(cudaGetDeviceCount(&ndev));
  CHECK_CUDA(cudaSetDevice(rank % ndev));

  const int n = 200000, dim = 8, k = 16, max_iter = 50;
  const float tol = 1e-4f;

  float *pts, *centroids, *sums;
  int* counts;
  CHECK_CUDA(cudaMallocManaged(&pts, (size_t)n * dim * sizeof(float)));
  CHECK_CUDA(cudaMallocManaged(&centroids, (size_t)k * dim * sizeof(float)));
  CHECK_CUDA(cudaMallocManaged(&sums, (size_t)k * dim * sizeof(float)));
  CHECK_CUDA(cudaMallocManaged(&counts, k * sizeof(int)));

  // k Gaussian blobs; every rank draws its own share of points.
  std::mt19937 rng(2024u + 97u * rank);
  std::normal_distribution<float> noise(0.f, 0.6f);
  for (int i = 0; i < n; ++i) {
    const int blob = (i * 7 + rank) % k;
    for (int j = 0; j < dim; ++j)
      pts[(size_t)i * dim + j] = 4.f * (float)((blob >> (j % 4)) & 1) + (float)(blob * (j + 1) % 5) + noise(rng);
  }

  // Rank 0 seeds the centroids with points spread over its share.
  if (rank == 0)
    for (int c = 0; c < k; ++c)
      for (int j = 0; j < dim; ++j) centroids[c * dim + j] = pts[(size_t)c * (n / k) * dim + j];
  CHECK_MPI(MPI_Bcast(centroids, k * dim, MPI_FLOAT, 0, MPI_COMM_WORLD));

  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  int iter = 0;
  float shift = 0.f;
  for (iter = 0; iter < max_iter; ++iter) {
    std::fill(sums, sums + k * dim, 0.f);
    std::fill(counts, counts + k, 0);
    assign_and_accumulate<<<(n + 255) / 256, 256, 0, s>>>(pts, n, dim, centroids, k, sums, counts);
    CHECK_CUDA(cudaStreamSynchronize(s));  // the local sums are final

    // Global sums over every rank's points.
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, sums, k * dim, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, counts, k, MPI_INT, MPI_SUM, MPI_COMM_WORLD));

    shift = 0.f;
    for (int c = 0; c < k; ++c) {
      if (counts[c] == 0) continue;  // empty cluster keeps its centroid
      for (int j = 0; j < dim; ++j) {
        const float v = sums[c * dim + j] / (float)counts[c];
        shift = std::max(shift, std::fabs(v - centroids[c * dim + j]));
        centroids[c * dim + j] = v;
      }
    }
    if (rank == 0) std::printf("iter %2d  max centroid shift %.3e\n", iter, shift);
    if (shift < tol) break;
  }
  if (rank == 0) std::printf("k-means: %d iterations, final shift %.3e\n", iter, shift);

  CHECK_CUDA(cudaFree(pts));
  CHECK_CUDA(cudaFree(centroids));
  CHECK_CUDA(cudaFree(sums));
  CHECK_CUDA(cudaFree(counts));
  CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
