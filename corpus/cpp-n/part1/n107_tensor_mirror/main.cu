// case: Greedy decoding loop computes LM-head logits into a tensor class with a pinned host mirror (tensor.cuh); to_host_async enqueues the download and the argmax reads the mirror immediately, before the cudaStreamSynchronize that follows it.
// expect: missing_sync=1
#include "tensor.cuh"
#include <vector>

__global__ void lm_head(const float* hidden, const float* w, float* logits, int vocab, int hdim) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vocab) return;
  const float* row = w + size_t(v) * hdim;
  float acc = 0.f;
  for (int k = 0; k < hdim; ++k) acc += row[k] * hidden[k];
  logits[v] = acc;
}

int main() {
  constexpr int kVocab = 32000, kHidden = 1024, kSteps = 4;
  std::vector<float> h_hidden(kHidden), h_w(size_t(kVocab) * kHidden);
  for (int k = 0; k < kHidden; ++k) h_hidden[k] = 0.01f * float(k % 17);
  for (size_t i = 0; i < h_w.size(); ++i) h_w[i] = float((i * 31) % 97) / 97.0f - 0.5f;

  float *d_hidden, *d_w;
  CUDA_CHECK(cudaMalloc(&d_hidden, kHidden * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_w, h_w.size() * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_hidden, h_hidden.data(), kHidden * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_w, h_w.data(), h_w.size() * sizeof(float), cudaMemcpyHostToDevice));

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  PinnedMirrorTensor logits(kVocab);
  std::vector<int> tokens;

  for (int step = 0; step < kSteps; ++step) {
    lm_head<<<(kVocab + 255) / 256, 256, 0, stream>>>(d_hidden, d_w, logits.dev(), kVocab, kHidden);
    CUDA_CHECK(cudaGetLastError());
    logits.to_host_async(stream);

    const float* p = logits.host_data();
    int best = 0;
    for (int v = 1; v < kVocab; ++v) if (p[v] > p[best]) best = v;  // EXPECT: missing_sync
    tokens.push_back(best);
    CUDA_CHECK(cudaStreamSynchronize(stream));

    h_hidden[best % kHidden] += 0.5f;  // feed the token back
    CUDA_CHECK(cudaMemcpy(d_hidden, h_hidden.data(), kHidden * sizeof(float), cudaMemcpyHostToDevice));
  }
  for (int t : tokens) printf("%d ", t);
  printf("\n");

  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(d_hidden));
  CUDA_CHECK(cudaFree(d_w));
  return 0;
}
