// case: near miss for relies_on_implicit_sync: per-row maxima of a score matrix are copied with cudaMemcpyAsync into a std::vector (pageable, so slow), but the host reads them only after cudaStreamSynchronize
// expect: pageable_async_copy=1
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                          \
  do {                                                                       \
    cudaError_t e = (call);                                                  \
    if (e != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e));        \
      return EXIT_FAILURE;                                                   \
    }                                                                        \
  } while (0)

__global__ void row_max(const float* __restrict__ scores, float* __restrict__ best, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* row = scores + static_cast<size_t>(r) * cols;
  float m = row[0];
  for (int c = 1; c < cols; ++c) m = fmaxf(m, row[c]);
  best[r] = m;
}

int main(int argc, char** argv) {
  const int rows = argc > 1 ? std::atoi(argv[1]) : 200000;
  const int cols = 64;
  std::vector<float> scores(static_cast<size_t>(rows) * cols);
  for (size_t i = 0; i < scores.size(); ++i) scores[i] = std::sin(0.91f * i);

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  float *d_scores = nullptr, *d_best = nullptr;
  CHECK(cudaMalloc(&d_scores, scores.size() * sizeof(float)));
  CHECK(cudaMalloc(&d_best, rows * sizeof(float)));
  CHECK(cudaMemcpy(d_scores, scores.data(), scores.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaDeviceSynchronize());

  row_max<<<(rows + 255) / 256, 256, 0, stream>>>(d_scores, d_best, rows, cols);
  CHECK(cudaGetLastError());
  std::vector<float> best(rows);
  CHECK(cudaMemcpyAsync(best.data(), d_best, rows * sizeof(float), cudaMemcpyDeviceToHost, stream));  // EXPECT: pageable_async_copy
  CHECK(cudaStreamSynchronize(stream));

  double mean_best = 0.0;
  for (int r = 0; r < rows; ++r) mean_best += best[r];
  std::printf("mean row maximum %.5f\n", mean_best / rows);

  CHECK(cudaFree(d_scores));
  CHECK(cudaFree(d_best));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
