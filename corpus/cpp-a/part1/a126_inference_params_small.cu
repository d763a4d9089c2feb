// case: batched softmax inference; per-call launch parameters (a stack struct) and a 256-entry bias table (a std::array) go to the device with cudaMemcpyAsync from pageable memory, but both are far under 64 KiB, the struct is rewritten after the call (staged, allowed), and the large activations use pinned buffers (near-miss)
// expect: none
#include <cuda_runtime.h>
#include <array>
#include <cfloat>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "infer: %s:%d %s\n", __FILE__, __LINE__,             \
                   cudaGetErrorString(e_));                                     \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

struct SoftmaxParams {
  int rows;
  int cols;
  float temperature;
  int apply_bias;
};

constexpr int kClasses = 256;

__global__ void biased_softmax(const SoftmaxParams* p, const float* __restrict__ bias,
                               const float* __restrict__ logits, float* __restrict__ probs) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= p->rows) return;
  const float* in = logits + size_t(r) * p->cols;
  float* out = probs + size_t(r) * p->cols;
  float m = -FLT_MAX;
  for (int c = 0; c < p->cols; ++c) m = fmaxf(m, (in[c] + (p->apply_bias ? bias[c] : 0.f)) / p->temperature);
  float sum = 0.f;
  for (int c = 0; c < p->cols; ++c) {
    float e = __expf((in[c] + (p->apply_bias ? bias[c] : 0.f)) / p->temperature - m);
    out[c] = e;
    sum += e;
  }
  for (int c = 0; c < p->cols; ++c) out[c] /= sum;
}

int main(int argc, char** argv) {
  const int rows = argc > 1 ? std::atoi(argv[1]) : 4096;
  const size_t elems = size_t(rows) * kClasses;

  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float *h_logits = nullptr, *h_probs = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_logits, elems * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_probs, elems * sizeof(float)));
  float *d_logits = nullptr, *d_probs = nullptr, *d_bias = nullptr;
  SoftmaxParams* d_params = nullptr;
  CUDA_CHECK(cudaMalloc(&d_logits, elems * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_probs, elems * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_bias, kClasses * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_params, sizeof(SoftmaxParams)));

  std::array<float, kClasses> bias{};
  for (int c = 0; c < kClasses; ++c) bias[c] = (c % 7) * 0.01f;
  for (size_t i = 0; i < elems; ++i) h_logits[i] = float(i % kClasses) * 0.02f;

  SoftmaxParams params{rows, kClasses, 1.0f, 1};
  CUDA_CHECK(cudaMemcpyAsync(d_bias, bias.data(), sizeof(float) * kClasses, cudaMemcpyHostToDevice, s));
  CUDA_CHECK(cudaMemcpyAsync(d_params, &params, sizeof(params), cudaMemcpyHostToDevice, s));
  params.temperature = 2.0f;  // staged already: the copy above keeps 1.0
  CUDA_CHECK(cudaMemcpyAsync(d_logits, h_logits, elems * sizeof(float), cudaMemcpyHostToDevice, s));
  biased_softmax<<<(rows + 127) / 128, 128, 0, s>>>(d_params, d_bias, d_logits, d_probs);
  CUDA_CHECK(cudaMemcpyAsync(h_probs, d_probs, elems * sizeof(float), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  std::printf("p[0][255] = %f (next temperature %.1f)\n", h_probs[kClasses - 1], params.temperature);

  cudaFree(d_params);
  cudaFree(d_bias);
  cudaFree(d_probs);
  cudaFree(d_logits);
  cudaFreeHost(h_probs);
  cudaFreeHost(h_logits);
  cudaStreamDestroy(s);
  return 0;
}
