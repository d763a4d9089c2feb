// case: feature standardisation streamed in batches through a blocking stream; each batch's device buffer is cudaFreed at the end of the loop body while its kernel and copy back are still queued
// expect: relies_on_implicit_sync=1
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

__global__ void standardize(float* x, size_t count, float mean, float inv_std) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x)
    x[i] = (x[i] - mean) * inv_std;
}

int main(int argc, char** argv) {
  const size_t total = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (size_t(1) << 26);
  const size_t batch = size_t(1) << 22;

  float* h_in = nullptr;
  float* h_out = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_in, total * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_out, total * sizeof(float)));

  double sum = 0.0, sum2 = 0.0;
  for (size_t i = 0; i < total; ++i) {
    h_in[i] = static_cast<float>((i * 2654435761u) % 1000) * 0.01f;
    sum += h_in[i];
    sum2 += double(h_in[i]) * h_in[i];
  }
  const float mean = static_cast<float>(sum / total);
  const float inv_std = static_cast<float>(1.0 / std::sqrt(sum2 / total - double(mean) * mean));

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));

  for (size_t off = 0; off < total; off += batch) {
    const size_t count = std::min(batch, total - off);
    const size_t bytes = count * sizeof(float);
    float* d_batch = nullptr;
    CUDA_CHECK(cudaMalloc(&d_batch, bytes));
    CUDA_CHECK(cudaMemcpyAsync(d_batch, h_in + off, bytes, cudaMemcpyHostToDevice, stream));
    standardize<<<1024, 256, 0, stream>>>(d_batch, count, mean, inv_std);
    CUDA_CHECK(cudaMemcpyAsync(h_out + off, d_batch, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaFree(d_batch));  // EXPECT: relies_on_implicit_sync
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));

  double check = 0.0;
  for (size_t i = 0; i < total; ++i) check += h_out[i];
  std::printf("mean after standardisation: %.3e\n", check / total);

  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFreeHost(h_in));
  CUDA_CHECK(cudaFreeHost(h_out));
  return 0;
}
