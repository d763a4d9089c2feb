// Hydraulic erosion pass of a procedural terrain generator. Each step's graph uploads the
// rainfall map (a std::vector sized by the world, page-locked in place with cudaHostRegister)
// and the 3x3 sediment-spread kernel (a small constant-size array on the stack), then
// rains, erodes and spreads the sediment. While the step is captured on the non-blocking
// simulation stream, the diagnostics counters are cleared by a kernel on the legacy default
// stream, which does not depend on a non-blocking stream; the host waits for the device before
// the first replay.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                                 \
  do {                                                                                   \
    cudaError_t e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "erosion: %s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

__global__ void clear_counters(unsigned* counters, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) counters[i] = 0;
}

__global__ void rain_and_erode(float* height, float* sediment, const float* rain, unsigned* counters, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  int i = y * nx + x;
  float h = height[i];
  float lowest = fminf(fminf(height[i - 1], height[i + 1]), fminf(height[i - nx], height[i + nx]));
  float slope = fmaxf(0.0f, h - lowest);
  float take = fminf(0.02f * rain[i] * slope, 0.5f * slope);
  height[i] = h - take;
  sediment[i] += take;
  if (take > 0.0f) atomicAdd(&counters[0], 1u);
}

__global__ void spread_sediment(float* height, float* sediment, const float* weights, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  float deposit = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) deposit += weights[(dy + 1) * 3 + (dx + 1)] * sediment[(y + dy) * nx + x + dx];
  height[y * nx + x] += 0.1f * deposit;
}

int main(int argc, char** argv) {
  const int nx = argc > 1 ? std::atoi(argv[1]) : 1024;
  const int ny = argc > 2 ? std::atoi(argv[2]) : 1024;
  const size_t cells = size_t(nx) * ny;
  const size_t bytes = cells * sizeof(float);

  std::vector<float> height0(cells), rain(cells);
  for (size_t i = 0; i < cells; ++i) {
    const float x = float(i % nx) / nx, y = float(i / nx) / ny;
    height0[i] = 0.5f + 0.3f * std::sin(7.0f * x) * std::cos(5.0f * y);
    rain[i] = 0.5f + 0.5f * y;  // wetter to the north
  }
  CUDA_CHECK(cudaHostRegister(rain.data(), bytes, cudaHostRegisterDefault));

  const float spread[9] = {0.05f, 0.1f, 0.05f, 0.1f, 0.4f, 0.1f, 0.05f, 0.1f, 0.05f};

  float *d_height, *d_sediment, *d_rain, *d_weights;
  unsigned* d_counters;
  CUDA_CHECK(cudaMalloc(&d_height, bytes));
  CUDA_CHECK(cudaMalloc(&d_sediment, bytes));
  CUDA_CHECK(cudaMalloc(&d_rain, bytes));
  CUDA_CHECK(cudaMalloc(&d_weights, sizeof(spread)));
  CUDA_CHECK(cudaMalloc(&d_counters, 4 * sizeof(unsigned)));
  CUDA_CHECK(cudaMemcpy(d_height, height0.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_sediment, 0, bytes));

  cudaStream_t sim;
  CUDA_CHECK(cudaStreamCreateWithFlags(&sim, cudaStreamNonBlocking));
  const dim3 blk(16, 16), grd((nx + 15) / 16, (ny + 15) / 16);

  cudaGraph_t g;
  cudaGraphExec_t step;
  CUDA_CHECK(cudaStreamBeginCapture(sim, cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaMemcpyAsync(d_rain, rain.data(), bytes, cudaMemcpyHostToDevice, sim));
  CUDA_CHECK(cudaMemcpyAsync(d_weights, spread, sizeof(spread), cudaMemcpyHostToDevice, sim));
  clear_counters<<<1, 32>>>(d_counters, 4);  // legacy stream: runs now, outside the graph
  rain_and_erode<<<grd, blk, 0, sim>>>(d_height, d_sediment, d_rain, d_counters, nx, ny);
  spread_sediment<<<grd, blk, 0, sim>>>(d_height, d_sediment, d_weights, nx, ny);
  CUDA_CHECK(cudaStreamEndCapture(sim, &g));
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaGraphInstantiate(&step, g, 0));
  CUDA_CHECK(cudaGraphDestroy(g));
  CUDA_CHECK(cudaDeviceSynchronize());  // the counters are cleared before the first replay

  for (int it = 0; it < 500; ++it) CUDA_CHECK(cudaGraphLaunch(step, sim));
  CUDA_CHECK(cudaStreamSynchronize(sim));

  unsigned eroded = 0;
  CUDA_CHECK(cudaMemcpy(&eroded, d_counters, sizeof(unsigned), cudaMemcpyDeviceToHost));
  std::vector<float> height(cells);
  CUDA_CHECK(cudaMemcpy(height.data(), d_height, bytes, cudaMemcpyDeviceToHost));
  double relief = 0.0;
  for (size_t i = 0; i < cells; ++i) relief += std::fabs(height[i] - height0[i]);
  std::printf("%u erosion events, mean change %.5f\n", eroded, relief / cells);

  CUDA_CHECK(cudaGraphExecDestroy(step));
  CUDA_CHECK(cudaHostUnregister(rain.data()));
  CUDA_CHECK(cudaFree(d_counters));
  CUDA_CHECK(cudaFree(d_weights));
  CUDA_CHECK(cudaFree(d_rain));
  CUDA_CHECK(cudaFree(d_sediment));
  CUDA_CHECK(cudaFree(d_height));
  CUDA_CHECK(cudaStreamDestroy(sim));
  return 0;
}
