// case: A k-means step keeps points, centroids and counters in managed memory and touches them on the host only after cudaDeviceSynchronize; a per-iteration log allocated with cudaMemAttachHost (never given to a kernel) is written by the host while kernels run, which is allowed: correct.
// expect: none
#include <cuda_runtime.h>
#include <cfloat>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x)                                                          \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e));           \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

constexpr int kK = 8;

struct IterLog {
  int iteration;
  double wall_ms;
  char note[48];
};

__global__ void assign(const float2* __restrict__ pts, int n, const float2* __restrict__ cent,
                       float2* __restrict__ sums, int* __restrict__ counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float2 p = pts[i];
  int best = 0;
  float bd = FLT_MAX;
  for (int k = 0; k < kK; ++k) {
    float dx = p.x - cent[k].x, dy = p.y - cent[k].y, d = dx * dx + dy * dy;
    if (d < bd) { bd = d; best = k; }
  }
  atomicAdd(&sums[best].x, p.x);
  atomicAdd(&sums[best].y, p.y);
  atomicAdd(&counts[best], 1);
}

int main() {
  const int n = 1 << 20, iters = 10;
  float2 *pts, *cent, *sums;
  int* counts;
  IterLog* log = nullptr;
  CUDA_CHECK(cudaMallocManaged(&pts, n * sizeof(float2)));
  CUDA_CHECK(cudaMallocManaged(&cent, kK * sizeof(float2)));
  CUDA_CHECK(cudaMallocManaged(&sums, kK * sizeof(float2)));
  CUDA_CHECK(cudaMallocManaged(&counts, kK * sizeof(int)));
  CUDA_CHECK(cudaMallocManaged(&log, iters * sizeof(IterLog), cudaMemAttachHost));

  for (int i = 0; i < n; ++i) {
    int c = i % kK;
    pts[i] = make_float2(10.f * c + (i % 97) * 0.01f, -5.f * c + (i % 89) * 0.01f);
  }
  for (int k = 0; k < kK; ++k) cent[k] = pts[k * 131];

  cudaEvent_t t0, t1;
  CUDA_CHECK(cudaEventCreate(&t0));
  CUDA_CHECK(cudaEventCreate(&t1));
  for (int it = 0; it < iters; ++it) {
    for (int k = 0; k < kK; ++k) {
      sums[k] = make_float2(0.f, 0.f);
      counts[k] = 0;
    }
    CUDA_CHECK(cudaEventRecord(t0));
    assign<<<(n + 255) / 256, 256>>>(pts, n, cent, sums, counts);
    CUDA_CHECK(cudaEventRecord(t1));
    // host-attached: no kernel can touch it, so the host may write it while assign runs
    log[it].iteration = it;
    std::snprintf(log[it].note, sizeof(log[it].note), "k=%d n=%d", kK, n);

    CUDA_CHECK(cudaDeviceSynchronize());
    float ms = 0.f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    log[it].wall_ms = ms;
    for (int k = 0; k < kK; ++k)
      if (counts[k] > 0) cent[k] = make_float2(sums[k].x / counts[k], sums[k].y / counts[k]);
  }

  for (int it = 0; it < iters; ++it)
    std::printf("iter %d: %.3f ms (%s)\n", log[it].iteration, log[it].wall_ms, log[it].note);
  for (int k = 0; k < kK; ++k) std::printf("centroid %d: (%.3f, %.3f)\n", k, cent[k].x, cent[k].y);

  CUDA_CHECK(cudaEventDestroy(t1));
  CUDA_CHECK(cudaEventDestroy(t0));
  CUDA_CHECK(cudaFree(log));
  CUDA_CHECK(cudaFree(counts));
  CUDA_CHECK(cudaFree(sums));
  CUDA_CHECK(cudaFree(cent));
  CUDA_CHECK(cudaFree(pts));
  return 0;
}
