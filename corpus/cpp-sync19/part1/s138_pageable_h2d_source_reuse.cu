// case: near miss for relies_on_implicit_sync: chunked upload from one std::vector staging buffer that the host refills right after each cudaMemcpyAsync host-to-device (pageable source reuse is out of scope; the copy is only slow)
// expect: pageable_async_copy=1
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                     \
  do {                                                                       \
    cudaError_t s_ = (call);                                                 \
    if (s_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(s_));       \
      return EXIT_FAILURE;                                                   \
    }                                                                        \
  } while (0)

__global__ void accumulate_chunk(const float* __restrict__ chunk, float* __restrict__ acc, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) acc[i] += chunk[i] * chunk[i];
}

// Stand-in for reading one record block from disk.
static void read_chunk(std::vector<float>& buf, int chunk_index) {
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = std::cos(0.001f * i + chunk_index);
}

int main(int argc, char** argv) {
  const int chunk = argc > 1 ? std::atoi(argv[1]) : (1 << 22);
  const int chunks = 16;

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  float *d_chunk = nullptr, *d_acc = nullptr;
  CUDA_CHECK(cudaMalloc(&d_chunk, chunk * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_acc, chunk * sizeof(float)));
  CUDA_CHECK(cudaMemsetAsync(d_acc, 0, chunk * sizeof(float), stream));

  std::vector<float> staging(chunk);
  for (int c = 0; c < chunks; ++c) {
    read_chunk(staging, c);
    CUDA_CHECK(cudaMemcpyAsync(d_chunk, staging.data(), chunk * sizeof(float), cudaMemcpyHostToDevice, stream));  // EXPECT: pageable_async_copy
    accumulate_chunk<<<(chunk + 255) / 256, 256, 0, stream>>>(d_chunk, d_acc, chunk);
  }
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaStreamSynchronize(stream));

  std::vector<float> acc(chunk);
  CUDA_CHECK(cudaMemcpy(acc.data(), d_acc, chunk * sizeof(float), cudaMemcpyDeviceToHost));
  const float peak = *std::max_element(acc.begin(), acc.end());
  std::printf("max energy across %d chunks: %.3f (acc[0] = %.3f)\n", chunks, peak, acc[0]);

  CUDA_CHECK(cudaFree(d_chunk));
  CUDA_CHECK(cudaFree(d_acc));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
