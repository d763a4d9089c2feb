// case: two-level sum reduction; per-block partial sums are copied with cudaMemcpyAsync into a std::vector (pageable) and summed on the host with no wait on the stream
// expect: relies_on_implicit_sync=1, pageable_async_copy=1
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                               \
  do {                                                                            \
    cudaError_t e = (call);                                                       \
    if (e != cudaSuccess) {                                                       \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      return EXIT_FAILURE;                                                        \
    }                                                                             \
  } while (0)

template <int BLOCK>
__global__ void block_sum(const float* __restrict__ x, float* __restrict__ partial, int n) {
  __shared__ float smem[BLOCK];
  const int tid = threadIdx.x;
  float v = 0.f;
  for (int i = blockIdx.x * BLOCK + tid; i < n; i += gridDim.x * BLOCK) v += x[i];
  smem[tid] = v;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s) smem[tid] += smem[tid + s];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = smem[0];
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : (1 << 26);
  constexpr int kBlock = 256;
  const int blocks = (n + kBlock * 8 - 1) / (kBlock * 8);

  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = 1.f / (1 + i % 1024);

  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));

  float *d_x = nullptr, *d_partial = nullptr;
  CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CHECK(cudaMalloc(&d_partial, blocks * sizeof(float)));
  CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  block_sum<kBlock><<<blocks, kBlock, 0, stream>>>(d_x, d_partial, n);
  CHECK(cudaGetLastError());

  std::vector<float> partial(blocks);
  CHECK(cudaMemcpyAsync(partial.data(), d_partial, blocks * sizeof(float), cudaMemcpyDeviceToHost, stream));  // EXPECT: pageable_async_copy
  double total = 0.0;
  for (int b = 0; b < blocks; ++b) total += partial[b];  // EXPECT: relies_on_implicit_sync
  std::printf("sum = %.6f over %d blocks\n", total, blocks);

  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_partial));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
