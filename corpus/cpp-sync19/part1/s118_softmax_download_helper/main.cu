// case: classifier head: softmax on a blocking stream, probabilities fetched with the download_async helper (cudaMemcpyAsync into a std::vector) and the host takes the arg-max of each row with no wait on the stream
// expect: relies_on_implicit_sync=1, pageable_async_copy=1
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "softmax.cuh"
#include "transfer.cuh"

int main(int argc, char** argv) {
  const int rows = argc > 1 ? std::atoi(argv[1]) : 8192;
  const int classes = 1000;
  const size_t count = static_cast<size_t>(rows) * classes;

  std::vector<float> logits(count);
  for (size_t i = 0; i < count; ++i) logits[i] = std::sin(0.7f * i) * 4.f;

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));

  float *d_logits = nullptr, *d_probs = nullptr;
  CUDA_CHECK(cudaMalloc(&d_logits, count * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_probs, count * sizeof(float)));
  upload(d_logits, logits);

  softmax_rows<<<(rows + 127) / 128, 128, 0, stream>>>(d_logits, d_probs, rows, classes);
  CUDA_CHECK(cudaGetLastError());

  std::vector<float> probs;
  download_async(probs, d_probs, count, stream);

  std::vector<int> predicted(rows);
  double confidence = 0.0;
  for (int r = 0; r < rows; ++r) {
    const size_t base = static_cast<size_t>(r) * classes;
    int best = 0;
    float best_p = probs[base];  // EXPECT: relies_on_implicit_sync
    for (int c = 1; c < classes; ++c) {
      if (probs[base + c] > best_p) {
        best_p = probs[base + c];
        best = c;
      }
    }
    predicted[r] = best;
    confidence += best_p;
  }
  std::printf("mean top-1 confidence %.4f, first prediction %d\n", confidence / rows, predicted[0]);

  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaFree(d_logits));
  CUDA_CHECK(cudaFree(d_probs));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
