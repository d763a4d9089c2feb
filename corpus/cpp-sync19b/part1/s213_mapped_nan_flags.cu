// case: validation kernel reports NaNs through mapped pinned memory (cudaHostAllocMapped); the host frees the decode LUT of an earlier, finished phase and then reads the flags with no wait for the kernel
// expect: relies_on_implicit_sync=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <vector>

__global__ void decode_kernel(const unsigned char* codes, const float* lut, float* values, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) values[i] = lut[codes[i]];
}

// flags[0]: number of non-finite values, flags[1]: one index of such a value
__global__ void find_nonfinite_kernel(const float* values, int n, int* flags) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && !isfinite(values[i])) {
    atomicAdd(&flags[0], 1);
    flags[1] = i;
  }
}

int main() {
  const int n = 1 << 21;
  cudaSetDeviceFlags(cudaDeviceMapHost);

  std::vector<unsigned char> h_codes(n);
  std::vector<float> h_lut(256);
  for (int i = 0; i < n; ++i) h_codes[i] = static_cast<unsigned char>(i * 37);
  for (int k = 0; k < 256; ++k) h_lut[k] = (k == 200) ? NAN : std::log1p(static_cast<float>(k));

  unsigned char* d_codes = nullptr;
  float *d_lut = nullptr, *d_values = nullptr;
  cudaMalloc(&d_codes, n);
  cudaMalloc(&d_lut, 256 * sizeof(float));
  cudaMalloc(&d_values, n * sizeof(float));
  cudaMemcpy(d_codes, h_codes.data(), n, cudaMemcpyHostToDevice);
  cudaMemcpy(d_lut, h_lut.data(), 256 * sizeof(float), cudaMemcpyHostToDevice);

  // decode phase, waited for
  decode_kernel<<<(n + 255) / 256, 256>>>(d_codes, d_lut, d_values, n);
  cudaDeviceSynchronize();

  int* h_flags = nullptr;
  int* d_flags = nullptr;
  cudaHostAlloc(&h_flags, 2 * sizeof(int), cudaHostAllocMapped);
  cudaHostGetDevicePointer(&d_flags, h_flags, 0);
  h_flags[0] = 0;
  h_flags[1] = -1;

  cudaStream_t stream;
  cudaStreamCreate(&stream);
  find_nonfinite_kernel<<<(n + 255) / 256, 256, 0, stream>>>(d_values, n, d_flags);

  cudaFree(d_lut);  // decode tables are done with
  cudaFree(d_codes);

  if (h_flags[0] != 0) {  // EXPECT: relies_on_implicit_sync
    std::printf("%d non-finite values (e.g. at %d)\n", h_flags[0], h_flags[1]);
  }

  cudaStreamSynchronize(stream);
  cudaFreeHost(h_flags);
  cudaFree(d_values);
  cudaStreamDestroy(stream);
  return 0;
}
