// case: image classifier driver uploads the preprocessed image from a std::vector with cudaMemcpyAsync (pageable), and after synchronizing prints a logit by indexing the cudaMalloc'd logits pointer on the host; the proper readback uses cudaMemcpy
// expect: pageable_async_copy=1, host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "classify: %s\n", cudaGetErrorString(e_));           \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

// Global average pooling per channel followed by a linear head.
__global__ void gap_linear(const float* __restrict__ img, int channels, int hw,
                           const float* __restrict__ W, const float* __restrict__ b,
                           int classes, float* __restrict__ logits) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= classes) return;
  float acc = b[k];
  for (int c = 0; c < channels; ++c) {
    float mean = 0.f;
    for (int p = 0; p < hw; ++p) mean += img[c * hw + p];
    acc += W[k * channels + c] * (mean / hw);
  }
  logits[k] = acc;
}

__global__ void init_head(float* W, float* b, int classes, int channels) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= classes) return;
  for (int c = 0; c < channels; ++c) W[k * channels + c] = 0.001f * ((k + c) % 13);
  b[k] = 0.f;
}

int main(int argc, char** argv) {
  const int channels = 3;
  const int side = argc > 1 ? std::atoi(argv[1]) : 512;
  const int hw = side * side;
  const int classes = 1000;

  std::vector<float> image(size_t(channels) * hw);
  for (size_t i = 0; i < image.size(); ++i) image[i] = float(i % 255) / 255.f;

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  float *d_img = nullptr, *d_W = nullptr, *d_b = nullptr, *d_logits = nullptr;
  CUDA_CHECK(cudaMalloc(&d_img, image.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_W, size_t(classes) * channels * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_b, classes * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_logits, classes * sizeof(float)));
  init_head<<<(classes + 127) / 128, 128, 0, stream>>>(d_W, d_b, classes, channels);

  CUDA_CHECK(cudaMemcpyAsync(d_img, image.data(), image.size() * sizeof(float), cudaMemcpyHostToDevice, stream));  // EXPECT: pageable_async_copy
  gap_linear<<<(classes + 127) / 128, 128, 0, stream>>>(d_img, channels, hw, d_W, d_b, classes, d_logits);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::printf("debug: logit[0] = %f\n", d_logits[0]);  // EXPECT: host_deref_device_ptr

  std::vector<float> logits(classes);
  CUDA_CHECK(cudaMemcpy(logits.data(), d_logits, classes * sizeof(float), cudaMemcpyDeviceToHost));
  const int top1 = int(std::max_element(logits.begin(), logits.end()) - logits.begin());
  std::printf("top-1 class %d (%f)\n", top1, logits[top1]);

  cudaFree(d_logits);
  cudaFree(d_b);
  cudaFree(d_W);
  cudaFree(d_img);
  cudaStreamDestroy(stream);
  return 0;
}
