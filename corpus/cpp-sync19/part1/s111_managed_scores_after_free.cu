// case: anomaly scoring into managed memory on the legacy stream; the host frees the raw-input buffer (its normalize pass was already synchronized) and then reads the managed scores, ordered after the scoring kernel only by that cudaFree
// expect: relies_on_implicit_sync=1
#include <cmath>
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

__global__ void normalize(const float* __restrict__ raw, float* __restrict__ norm, int n,
                          float offset, float scale) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) norm[i] = (raw[i] - offset) * scale;
}

// Score = squared deviation from a moving average over a window of 2*w+1 samples.
__global__ void score_window(const float* __restrict__ norm, float* __restrict__ scores, int n, int w) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float mean = 0.f;
  int cnt = 0;
  for (int k = max(0, i - w); k <= min(n - 1, i + w); ++k, ++cnt) mean += norm[k];
  mean /= cnt;
  const float d = norm[i] - mean;
  scores[i] = d * d;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : (1 << 20);
  const int window = 16;

  std::vector<float> raw(n);
  for (int i = 0; i < n; ++i) raw[i] = 20.f + 5.f * std::sin(0.001f * i) + ((i % 9973) == 0 ? 40.f : 0.f);

  float *d_raw = nullptr, *d_norm = nullptr, *scores = nullptr;
  CHECK(cudaMalloc(&d_raw, n * sizeof(float)));
  CHECK(cudaMalloc(&d_norm, n * sizeof(float)));
  CHECK(cudaMallocManaged(&scores, n * sizeof(float)));
  CHECK(cudaMemcpy(d_raw, raw.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  const int threads = 256, blocks = (n + threads - 1) / threads;
  normalize<<<blocks, threads>>>(d_raw, d_norm, n, 20.f, 0.2f);
  CHECK(cudaDeviceSynchronize());

  score_window<<<blocks, threads>>>(d_norm, scores, n, window);
  CHECK(cudaGetLastError());
  CHECK(cudaFree(d_raw));

  int worst = 0;
  float worst_score = scores[0];  // EXPECT: relies_on_implicit_sync
  for (int i = 1; i < n; ++i)
    if (scores[i] > worst_score) {
      worst_score = scores[i];
      worst = i;
    }
  std::printf("largest anomaly at sample %d (score %.3f)\n", worst, worst_score);

  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(d_norm));
  CHECK(cudaFree(scores));
  return 0;
}
