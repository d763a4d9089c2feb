// case: render loop keeps the host busy with UI work and polls cudaStreamQuery until it returns cudaSuccess before reading the pinned tile stats and freeing the tile buffer
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <thread>

__global__ void shade_tiles_kernel(const float* depth, int tiles, int tile_px, float* tile_mean) {
  int t = blockIdx.x;
  __shared__ float s[256];
  float acc = 0.0f;
  for (int p = threadIdx.x; p < tile_px; p += blockDim.x) acc += depth[static_cast<size_t>(t) * tile_px + p];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0 && t < tiles) tile_mean[t] = s[0] / tile_px;
}

static int ui_frames = 0;
static void pump_ui_events() { ++ui_frames; std::this_thread::yield(); }

int main() {
  const int tiles = 1024, tile_px = 64 * 64;
  const size_t px = static_cast<size_t>(tiles) * tile_px;

  cudaStream_t stream;
  cudaStreamCreate(&stream);
  float *d_depth = nullptr, *d_tile_mean = nullptr, *h_tile_mean = nullptr;
  cudaMalloc(&d_depth, px * sizeof(float));
  cudaMalloc(&d_tile_mean, tiles * sizeof(float));
  cudaMallocHost(&h_tile_mean, tiles * sizeof(float));
  cudaMemsetAsync(d_depth, 0, px * sizeof(float), stream);

  shade_tiles_kernel<<<tiles, 256, 0, stream>>>(d_depth, tiles, tile_px, d_tile_mean);
  cudaMemcpyAsync(h_tile_mean, d_tile_mean, tiles * sizeof(float), cudaMemcpyDeviceToHost, stream);

  while (cudaStreamQuery(stream) != cudaSuccess) {
    pump_ui_events();
  }

  float worst = 0.0f;
  for (int t = 0; t < tiles; ++t) worst = h_tile_mean[t] > worst ? h_tile_mean[t] : worst;
  cudaFree(d_depth);
  std::printf("worst tile depth %f after %d UI frames\n", worst, ui_frames);

  cudaFree(d_tile_mean);
  cudaFreeHost(h_tile_mean);
  cudaStreamDestroy(stream);
  return 0;
}
