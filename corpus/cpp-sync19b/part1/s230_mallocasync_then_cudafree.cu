// case: stream-ordered temporary from cudaMallocAsync is released with plain cudaFree right after the kernel that reads it: cudaFree documents no wait at all for such memory, so this is missing_sync, not an implicit sync relied on
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>

__global__ void softplus_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 20.0f ? x[i] : log1pf(expf(x[i]));
}

int main() {
  const int n = 1 << 20;
  const size_t bytes = n * sizeof(float);
  cudaStream_t stream;
  cudaStreamCreate(&stream);

  float *h_in = nullptr, *h_out = nullptr;
  cudaMallocHost(&h_in, bytes);
  cudaMallocHost(&h_out, bytes);
  for (int i = 0; i < n; ++i) h_in[i] = (i % 200) * 0.1f - 10.0f;

  float* d_out = nullptr;
  cudaMalloc(&d_out, bytes);

  float* d_in = nullptr;
  cudaMallocAsync(&d_in, bytes, stream);
  cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, stream);
  softplus_kernel<<<(n + 255) / 256, 256, 0, stream>>>(d_in, d_out, n);
  cudaFree(d_in);  // EXPECT: missing_sync

  cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  std::printf("softplus(-10)=%f softplus(9.9)=%f\n", h_out[0], h_out[199]);

  cudaFree(d_out);
  cudaFreeHost(h_in);
  cudaFreeHost(h_out);
  cudaStreamDestroy(stream);
  return 0;
}
