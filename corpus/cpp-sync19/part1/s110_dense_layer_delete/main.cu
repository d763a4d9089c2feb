// case: one-shot inference through a heap-allocated Dense<float> on a blocking stream; `delete fc` runs ~Dense, whose cudaFree of the weights comes right after the forward kernel that reads them was launched
// expect: relies_on_implicit_sync=1
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "dense.cuh"

template <typename T>
__global__ void relu_inplace(T* x, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n && x[i] < T(0)) x[i] = T(0);
}

int main(int argc, char** argv) {
  const int batch = argc > 1 ? std::atoi(argv[1]) : 256;
  const int in_features = 1024, out_features = 512;
  const size_t x_count = static_cast<size_t>(batch) * in_features;
  const size_t y_count = static_cast<size_t>(batch) * out_features;

  std::vector<float> hx(x_count), hW(static_cast<size_t>(in_features) * out_features), hb(out_features);
  for (size_t i = 0; i < hx.size(); ++i) hx[i] = std::sin(0.01f * i);
  for (size_t i = 0; i < hW.size(); ++i) hW[i] = 0.02f * std::cos(0.37f * i);
  for (int o = 0; o < out_features; ++o) hb[o] = 0.01f * (o % 5);

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));

  float *d_x = nullptr, *d_y = nullptr;
  CUDA_CHECK(cudaMalloc(&d_x, x_count * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_y, y_count * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_x, hx.data(), x_count * sizeof(float), cudaMemcpyHostToDevice));

  auto* fc = new Dense<float>(in_features, out_features, stream);
  fc->load(hW, hb);
  fc->forward(d_x, d_y, batch);
  relu_inplace<float><<<(y_count + 255) / 256, 256, 0, stream>>>(d_y, y_count);
  CUDA_CHECK(cudaGetLastError());
  delete fc;  // EXPECT: relies_on_implicit_sync

  std::vector<float> hy(y_count);
  CUDA_CHECK(cudaMemcpy(hy.data(), d_y, y_count * sizeof(float), cudaMemcpyDeviceToHost));
  size_t active = 0;
  for (float v : hy) active += v > 0.f;
  std::printf("%zu of %zu activations are positive\n", active, y_count);

  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_y));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
