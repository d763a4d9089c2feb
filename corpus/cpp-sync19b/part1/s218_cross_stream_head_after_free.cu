// case: inference step runs the embedding kernel on one stream and the output head on another; between them only a cudaFree of the previous request's cache orders the head's read of the hidden states after the embedding kernel
// expect: relies_on_implicit_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

__global__ void embed_kernel(const int* tokens, const float* table, float* hidden, int seq, int dim) {
  int t = blockIdx.x;
  for (int d = threadIdx.x; d < dim; d += blockDim.x)
    hidden[static_cast<size_t>(t) * dim + d] = table[static_cast<size_t>(tokens[t]) * dim + d];
}

__global__ void head_kernel(const float* hidden, const float* w, float* logits, int seq, int dim) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= seq) return;
  float acc = 0.0f;
  for (int d = 0; d < dim; ++d) acc += hidden[static_cast<size_t>(t) * dim + d] * w[d];
  logits[t] = acc;
}

__global__ void fill_cache_kernel(float* cache, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) cache[i] = 0.0f;
}

int main() {
  const int vocab = 4096, dim = 256, seq = 512;
  std::vector<float> h_table(static_cast<size_t>(vocab) * dim), h_w(dim), h_logits(seq);
  std::vector<int> h_tokens(seq);
  for (size_t i = 0; i < h_table.size(); ++i) h_table[i] = 0.001f * (i % 1000);
  for (int d = 0; d < dim; ++d) h_w[d] = 1.0f / dim;
  for (int t = 0; t < seq; ++t) h_tokens[t] = (t * 97) % vocab;

  cudaStream_t s_embed, s_head;
  cudaStreamCreate(&s_embed);
  cudaStreamCreate(&s_head);

  int* d_tokens = nullptr;
  float *d_table = nullptr, *d_w = nullptr, *d_hidden = nullptr, *d_logits = nullptr, *d_cache = nullptr;
  cudaMalloc(&d_tokens, seq * sizeof(int));
  cudaMalloc(&d_table, h_table.size() * sizeof(float));
  cudaMalloc(&d_w, dim * sizeof(float));
  cudaMalloc(&d_hidden, static_cast<size_t>(seq) * dim * sizeof(float));
  cudaMalloc(&d_logits, seq * sizeof(float));
  cudaMalloc(&d_cache, 1 << 20);
  cudaMemcpy(d_tokens, h_tokens.data(), seq * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_table, h_table.data(), h_table.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_w, h_w.data(), dim * sizeof(float), cudaMemcpyHostToDevice);

  // previous request: its cache, finished before this request starts
  fill_cache_kernel<<<((1 << 18) + 255) / 256, 256, 0, s_embed>>>(d_cache, 1 << 18);
  cudaStreamSynchronize(s_embed);

  embed_kernel<<<seq, 128, 0, s_embed>>>(d_tokens, d_table, d_hidden, seq, dim);
  cudaFree(d_cache);  // drop the previous request's cache
  head_kernel<<<(seq + 127) / 128, 128, 0, s_head>>>(d_hidden, d_w, d_logits, seq, dim);  // EXPECT: relies_on_implicit_sync

  cudaDeviceSynchronize();
  cudaMemcpy(h_logits.data(), d_logits, seq * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("logit[0]=%f logit[seq-1]=%f\n", h_logits[0], h_logits[seq - 1]);

  cudaFree(d_tokens);
  cudaFree(d_table);
  cudaFree(d_w);
  cudaFree(d_hidden);
  cudaFree(d_logits);
  cudaStreamDestroy(s_embed);
  cudaStreamDestroy(s_head);
  return 0;
}
