// case: peak detection over a signal; per-block maxima are copied with cudaMemcpyAsync into a 128 KiB stack array (pageable) and scanned by the host with no wait on the stream
// expect: relies_on_implicit_sync=1, pageable_async_copy=1
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      return EXIT_FAILURE;                                                      \
    }                                                                           \
  } while (0)

constexpr int kThreads = 512;
constexpr int kMaxBlocks = 32768;

__global__ void block_abs_max(const float* __restrict__ x, float* __restrict__ block_max, size_t n) {
  __shared__ float smem[kThreads];
  float m = 0.f;
  for (size_t i = blockIdx.x * size_t(kThreads) + threadIdx.x; i < n; i += size_t(gridDim.x) * kThreads)
    m = fmaxf(m, fabsf(x[i]));
  smem[threadIdx.x] = m;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) smem[threadIdx.x] = fmaxf(smem[threadIdx.x], smem[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) block_max[blockIdx.x] = smem[0];
}

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (size_t(1) << 27);
  const int blocks = static_cast<int>(std::min<size_t>(kMaxBlocks, (n + kThreads - 1) / kThreads));

  std::vector<float> signal(n);
  for (size_t i = 0; i < n; ++i) signal[i] = std::sin(1e-4f * i) * (i % 100003 == 0 ? 8.f : 1.f);

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  float *d_x = nullptr, *d_block_max = nullptr;
  CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_block_max, kMaxBlocks * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_x, signal.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  block_abs_max<<<blocks, kThreads, 0, stream>>>(d_x, d_block_max, n);
  CUDA_CHECK(cudaGetLastError());

  float block_max[kMaxBlocks];
  CUDA_CHECK(cudaMemcpyAsync(block_max, d_block_max, blocks * sizeof(float), cudaMemcpyDeviceToHost, stream));  // EXPECT: pageable_async_copy
  float peak = block_max[0];  // EXPECT: relies_on_implicit_sync
  int peak_block = 0;
  for (int b = 1; b < blocks; ++b)
    if (block_max[b] > peak) {
      peak = block_max[b];
      peak_block = b;
    }
  std::printf("peak |x| = %.3f in block %d of %d\n", peak, peak_block, blocks);

  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_block_max));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
