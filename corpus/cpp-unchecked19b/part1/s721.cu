// case: a tiled kernel tries to opt into more shared memory and, on failure, clears the error with a bare cudaGetLastError(); every launch is followed by CUDA_CHECK(cudaPeekAtLastError()).
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                      \
  do {                                                                        \
    cudaError_t st_ = (call);                                                 \
    if (st_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(st_)); \
      std::exit(EXIT_FAILURE);                                                \
    }                                                                         \
  } while (0)

__global__ void tile_sum(const float* in, float* out, int n, int tile) {
  extern __shared__ float buf[];
  int base = blockIdx.x * tile;
  for (int i = threadIdx.x; i < tile; i += blockDim.x) buf[i] = (base + i < n) ? in[base + i] : 0.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int i = 0; i < tile; ++i) s += buf[i];
    out[blockIdx.x] = s;
  }
}

int main() {
  int dev = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));

  int tile = 16384;  // 64 KiB of floats: needs the opt-in
  if (cudaFuncSetAttribute(tile_sum, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           tile * static_cast<int>(sizeof(float))) != cudaSuccess) {
    cudaGetLastError();  // clear the error and fall back to the default 48 KiB
    tile = 8192;
  }

  const int n = 1 << 24;
  const int tiles = (n + tile - 1) / tile;
  std::vector<float> h_in(n, 1.0f), h_out(tiles);
  float *d_in = nullptr, *d_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, tiles * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  for (int pass = 0; pass < 3; ++pass) {
    tile_sum<<<tiles, 256, tile * sizeof(float)>>>(d_in, d_out, n, tile);
    CUDA_CHECK(cudaPeekAtLastError());
  }
  CUDA_CHECK(cudaMemcpy(h_out.data(), d_out, tiles * sizeof(float), cudaMemcpyDeviceToHost));

  double total = 0.0;
  for (float v : h_out) total += v;
  std::printf("%s: tile %d, total %.0f (expected %d)\n", prop.name, tile, total, n);

  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaFree(d_in));
  return 0;
}
