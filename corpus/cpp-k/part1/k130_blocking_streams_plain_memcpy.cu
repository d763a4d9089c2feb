// case: Two scoring kernels run concurrently on two streams created with cudaStreamCreate (blocking streams); inputs go up and results come back with plain cudaMemcpy on the legacy default stream, which waits for all prior work on blocking streams (default build, no per-thread default stream): correct.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(expr)                                                       \
  do {                                                                         \
    cudaError_t e_ = (expr);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s failed: %s\n", #expr, cudaGetErrorString(e_));  \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

struct Model {
  const char* name;
  std::vector<float> weights;  // dim
  float* d_weights = nullptr;
  float* d_scores = nullptr;
  cudaStream_t stream = nullptr;
};

__global__ void score_rows(const float* __restrict__ x, const float* __restrict__ w,
                           float* __restrict__ out, int rows, int dim) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float acc = 0.f;
  for (int k = 0; k < dim; ++k) acc += x[size_t(r) * dim + k] * w[k];
  out[r] = 1.f / (1.f + __expf(-acc));
}

int main() {
  const int rows = 200000, dim = 64;
  std::vector<float> features(size_t(rows) * dim);
  for (size_t i = 0; i < features.size(); ++i) features[i] = std::cos(0.013f * float(i % 4099));

  Model models[2] = {{"linear-a", std::vector<float>(dim)}, {"linear-b", std::vector<float>(dim)}};
  for (int k = 0; k < dim; ++k) {
    models[0].weights[k] = 0.05f * (k % 5);
    models[1].weights[k] = -0.03f * (k % 7) + 0.1f;
  }

  float* d_features = nullptr;
  CUDA_CHECK(cudaMalloc(&d_features, features.size() * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_features, features.data(), features.size() * sizeof(float),
                        cudaMemcpyHostToDevice));
  for (Model& m : models) {
    CUDA_CHECK(cudaStreamCreate(&m.stream));  // blocking: synchronizes with the legacy stream
    CUDA_CHECK(cudaMalloc(&m.d_weights, dim * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&m.d_scores, rows * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(m.d_weights, m.weights.data(), dim * sizeof(float),
                          cudaMemcpyHostToDevice));
  }

  for (Model& m : models)
    score_rows<<<(rows + 127) / 128, 128, 0, m.stream>>>(d_features, m.d_weights, m.d_scores,
                                                         rows, dim);
  CUDA_CHECK(cudaGetLastError());

  std::vector<float> a(rows), b(rows);
  // legacy-stream copies: each waits for the kernels already enqueued on the blocking streams
  CUDA_CHECK(cudaMemcpy(a.data(), models[0].d_scores, rows * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(b.data(), models[1].d_scores, rows * sizeof(float), cudaMemcpyDeviceToHost));

  int agree = 0;
  for (int r = 0; r < rows; ++r) agree += (a[r] > 0.5f) == (b[r] > 0.5f);
  std::printf("%s vs %s agree on %.2f%% of rows\n", models[0].name, models[1].name,
              100.0 * agree / rows);

  for (Model& m : models) {
    CUDA_CHECK(cudaFree(m.d_scores));
    CUDA_CHECK(cudaFree(m.d_weights));
    CUDA_CHECK(cudaStreamDestroy(m.stream));
  }
  CUDA_CHECK(cudaFree(d_features));
  return 0;
}
