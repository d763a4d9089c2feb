// case: batched linear scoring on a non-blocking stream; each batch's scores are copied with cudaMemcpyAsync into one new[]'d host buffer and counted above a threshold inside the loop with no wait on the stream
// expect: relies_on_implicit_sync=1, pageable_async_copy=1
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(stmt)                                                               \
  do {                                                                            \
    cudaError_t s = (stmt);                                                       \
    if (s != cudaSuccess) {                                                       \
      std::fprintf(stderr, "%s failed: %s\n", #stmt, cudaGetErrorString(s));      \
      return 2;                                                                   \
    }                                                                             \
  } while (0)

__global__ void score_rows(const float* __restrict__ feats, const float* __restrict__ w,
                           float* __restrict__ scores, int count, int dim, float bias) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= count) return;
  const float* f = feats + static_cast<size_t>(r) * dim;
  float z = bias;
  for (int k = 0; k < dim; ++k) z += f[k] * w[k];
  scores[r] = 1.f / (1.f + __expf(-z));
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 20;
  const int dim = 32;
  const int batch = 1 << 16;
  const float threshold = 0.9f;

  std::vector<float> feats(static_cast<size_t>(n) * dim), w(dim);
  for (size_t i = 0; i < feats.size(); ++i) feats[i] = std::cos(0.01f * i);
  for (int k = 0; k < dim; ++k) w[k] = 0.1f * (k - dim / 2);

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  float *d_feats = nullptr, *d_w = nullptr, *d_scores = nullptr;
  CHECK(cudaMalloc(&d_feats, feats.size() * sizeof(float)));
  CHECK(cudaMalloc(&d_w, dim * sizeof(float)));
  CHECK(cudaMalloc(&d_scores, batch * sizeof(float)));
  CHECK(cudaMemcpy(d_feats, feats.data(), feats.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_w, w.data(), dim * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaDeviceSynchronize());

  float* h_scores = new float[batch];
  long long hits = 0;
  for (int off = 0; off < n; off += batch) {
    const int count = std::min(batch, n - off);
    score_rows<<<(count + 255) / 256, 256, 0, stream>>>(d_feats + static_cast<size_t>(off) * dim, d_w, d_scores, count, dim, -0.5f);
    CHECK(cudaMemcpyAsync(h_scores, d_scores, count * sizeof(float), cudaMemcpyDeviceToHost, stream));  // EXPECT: pageable_async_copy
    for (int i = 0; i < count; ++i)
      if (h_scores[i] > threshold) ++hits;  // EXPECT: relies_on_implicit_sync
  }
  std::printf("%lld of %d rows above %.2f\n", hits, n, threshold);

  CHECK(cudaStreamSynchronize(stream));
  delete[] h_scores;
  CHECK(cudaFree(d_feats));
  CHECK(cudaFree(d_w));
  CHECK(cudaFree(d_scores));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
