// case: loader refills the same std::vector for every batch right after enqueuing the async host-to-device copy from it: a host write to the pageable source of an H2D copy is out of scope (the driver stages it); only the pageable copy itself is reported
// expect: pageable_async_copy=1
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

__global__ void accumulate_kernel(const float* batch, float* sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) sum[i] += batch[i];
}

static void read_batch(std::vector<float>& dst, int b) {
  for (size_t i = 0; i < dst.size(); ++i) dst[i] = static_cast<float>((i + b) % 10);
}

int main(int argc, char**) {
  const int n = (argc > 1 ? 2 : 1) << 20;
  const int kBatches = 8;
  std::vector<float> h_batch(n), h_sum(n);

  cudaStream_t stream;
  cudaStreamCreate(&stream);
  float *d_batch = nullptr, *d_sum = nullptr;
  cudaMalloc(&d_batch, n * sizeof(float));
  cudaMalloc(&d_sum, n * sizeof(float));
  cudaMemset(d_sum, 0, n * sizeof(float));

  for (int b = 0; b < kBatches; ++b) {
    read_batch(h_batch, b);
    cudaMemcpyAsync(d_batch, h_batch.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream);  // EXPECT: pageable_async_copy
    accumulate_kernel<<<(n + 255) / 256, 256, 0, stream>>>(d_batch, d_sum, n);
  }

  cudaStreamSynchronize(stream);
  cudaMemcpy(h_sum.data(), d_sum, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("sum[3]=%f\n", h_sum[3]);
  cudaFree(d_batch);
  cudaFree(d_sum);
  cudaStreamDestroy(stream);
  return 0;
}
