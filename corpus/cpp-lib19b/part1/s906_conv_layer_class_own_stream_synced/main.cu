// Streams a few batches of images through one conv+bias+ReLU layer and
// prints the fraction of active units per batch. The layer runs on its own
// non-blocking stream; the caller waits for that stream before reading back.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include <cudnn.h>
#include "check.h"
#include "conv_layer.h"

constexpr int kBatches = 4;

static void fill_batch(float* h_x, size_t n, int batch) {
  for (size_t i = 0; i < n; ++i)
    h_x[i] = std::sin(0.37f * static_cast<float>((i + 977 * batch) % 4096));
}

int main() {
  ConvReluLayer layer(/*n=*/8, /*c=*/3, /*h=*/64, /*w=*/64, /*k=*/16, /*seed=*/1234u);

  const size_t in_elems = layer.input_elems();
  const size_t out_elems = layer.output_elems();

  float* h_x = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_x, in_elems * sizeof(float)));
  float* d_x = nullptr;
  float* d_y = nullptr;
  CUDA_CHECK(cudaMalloc(&d_x, in_elems * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_y, out_elems * sizeof(float)));

  std::vector<float> h_y(out_elems);
  for (int b = 0; b < kBatches; ++b) {
    fill_batch(h_x, in_elems, b);
    CUDA_CHECK(cudaMemcpyAsync(d_x, h_x, in_elems * sizeof(float), cudaMemcpyHostToDevice,
                               layer.stream()));
    layer.forward(d_x, d_y);
    layer.synchronize();

    // The layer's stream is drained: the plain blocking copy reads the final
    // activations.
    CUDA_CHECK(cudaMemcpy(h_y.data(), d_y, out_elems * sizeof(float), cudaMemcpyDeviceToHost));
    size_t active = 0;
    for (float v : h_y) active += v > 0.0f;
    std::printf("batch %d: active units %zu / %zu\n", b, active, out_elems);
  }

  CUDA_CHECK(cudaFree(d_y));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFreeHost(h_x));
  return 0;
}
