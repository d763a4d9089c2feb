// case: attention stage stores its cleanup in a std::function whose lambda synchronizes the stage's stream before cudaFree of the mask; the stage calls it right after the launch
// expect: none
#include <cuda_runtime.h>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

__global__ void masked_softmax_kernel(const float* scores, const unsigned char* mask, float* probs, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* s = scores + static_cast<size_t>(r) * cols;
  const unsigned char* m = mask + static_cast<size_t>(r) * cols;
  float mx = -FLT_MAX;
  for (int c = 0; c < cols; ++c) if (m[c]) mx = fmaxf(mx, s[c]);
  float sum = 0.0f;
  for (int c = 0; c < cols; ++c) sum += m[c] ? expf(s[c] - mx) : 0.0f;
  for (int c = 0; c < cols; ++c) probs[static_cast<size_t>(r) * cols + c] = m[c] ? expf(s[c] - mx) / sum : 0.0f;
}

struct AttentionStage {
  cudaStream_t stream;
  int rows, cols;

  void run(const float* d_scores, float* d_probs) {
    std::vector<unsigned char> causal(static_cast<size_t>(rows) * cols);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) causal[static_cast<size_t>(r) * cols + c] = c <= r;
    unsigned char* d_mask = nullptr;
    cudaMalloc(&d_mask, causal.size());
    cudaMemcpy(d_mask, causal.data(), causal.size(), cudaMemcpyHostToDevice);

    cudaStream_t s = stream;
    std::function<void()> release_mask = [d_mask, s]() {
      cudaStreamSynchronize(s);
      cudaFree(d_mask);
    };

    masked_softmax_kernel<<<(rows + 63) / 64, 64, 0, stream>>>(d_scores, d_mask, d_probs, rows, cols);
    release_mask();
  }
};

int main() {
  AttentionStage stage{nullptr, 512, 512};
  cudaStreamCreate(&stage.stream);
  const size_t n = static_cast<size_t>(stage.rows) * stage.cols;
  std::vector<float> h_scores(n), h_probs(n);
  for (size_t i = 0; i < n; ++i) h_scores[i] = std::sin(0.37f * i);
  float *d_scores = nullptr, *d_probs = nullptr;
  cudaMalloc(&d_scores, n * sizeof(float));
  cudaMalloc(&d_probs, n * sizeof(float));
  cudaMemcpy(d_scores, h_scores.data(), n * sizeof(float), cudaMemcpyHostToDevice);

  stage.run(d_scores, d_probs);

  cudaMemcpy(h_probs.data(), d_probs, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("p[1][0]=%f p[1][1]=%f\n", h_probs[stage.cols], h_probs[stage.cols + 1]);
  cudaFree(d_scores);
  cudaFree(d_probs);
  cudaStreamDestroy(stage.stream);
  return 0;
}
