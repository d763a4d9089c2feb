// case: near miss: audio gain/clip processing in batches on a blocking stream; each batch's device buffer is freed only after cudaStreamSynchronize at the end of the loop body
// expect: none
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                  \
  do {                                                                    \
    cudaError_t rc = (call);                                              \
    if (rc != cudaSuccess) {                                              \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(rc));    \
      return 1;                                                           \
    }                                                                     \
  } while (0)

__global__ void gain_soft_clip(float* pcm, size_t count, float gain) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x)
    pcm[i] = tanhf(gain * pcm[i]);
}

int main(int argc, char** argv) {
  const size_t total = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : size_t(48000) * 60 * 10;
  const size_t batch = size_t(48000) * 30;
  const float gain = 2.5f;

  float *h_pcm = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_pcm, total * sizeof(float)));
  for (size_t i = 0; i < total; ++i) h_pcm[i] = 0.6f * std::sin(2.f * 3.14159265f * 440.f * i / 48000.f);

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));

  for (size_t off = 0; off < total; off += batch) {
    const size_t count = std::min(batch, total - off);
    const size_t bytes = count * sizeof(float);
    float* d_pcm = nullptr;
    CUDA_CHECK(cudaMalloc(&d_pcm, bytes));
    CUDA_CHECK(cudaMemcpyAsync(d_pcm, h_pcm + off, bytes, cudaMemcpyHostToDevice, stream));
    gain_soft_clip<<<512, 256, 0, stream>>>(d_pcm, count, gain);
    CUDA_CHECK(cudaMemcpyAsync(h_pcm + off, d_pcm, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaFree(d_pcm));
  }

  float peak = 0.f;
  for (size_t i = 0; i < total; ++i) peak = std::max(peak, std::fabs(h_pcm[i]));
  std::printf("peak after soft clip: %.4f\n", peak);

  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFreeHost(h_pcm));
  return 0;
}
