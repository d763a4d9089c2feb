// Runs one conv+bias+ReLU layer over a batch of images and prints the
// fraction of active units.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include <cudnn.h>
#include "check.h"
#include "conv_layer.h"

int main() {
  ConvReluLayer layer(/*n=*/8, /*c=*/3, /*h=*/64, /*w=*/64, /*k=*/16, /*seed=*/1234u);

  const size_t in_elems = layer.input_elems();
  const size_t out_elems = layer.output_elems();

  float* h_x = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_x, in_elems * sizeof(float)));
  for (size_t i = 0; i < in_elems; ++i) h_x[i] = std::sin(0.37f * static_cast<float>(i % 4096));

  float* d_x = nullptr;
  float* d_y = nullptr;
  CUDA_CHECK(cudaMalloc(&d_x, in_elems * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_y, out_elems * sizeof(float)));

  CUDA_CHECK(cudaMemcpyAsync(d_x, h_x, in_elems * sizeof(float), cudaMemcpyHostToDevice,
                             layer.stream()));
  layer.forward(d_x, d_y);

  std::vector<float> h_y(out_elems);
  CUDA_CHECK(cudaMemcpy(h_y.data(), d_y, out_elems * sizeof(float), cudaMemcpyDeviceToHost));  // EXPECT: missing_sync

  size_t active = 0;
  for (float v : h_y) active += v > 0.0f;
  std::printf("active units: %zu / %zu (%.1f%%)\n", active, out_elems,
              100.0 * static_cast<double>(active) / static_cast<double>(out_elems));

  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(d_y));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFreeHost(h_x));
  return 0;
}
