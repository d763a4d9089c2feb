// case: A video denoiser grows its device scratch buffer whenever a frame is larger than the current capacity, but the grow path cudaMallocs over the only pointer to the previous scratch without freeing it (only the last one is freed at the end).
// expect: device_memory_leak=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x)                                                          \
  do {                                                                         \
    cudaError_t err__ = (x);                                                   \
    if (err__ != cudaSuccess) {                                                \
      std::fprintf(stderr, "error %s at %s:%d\n", cudaGetErrorString(err__),   \
                   __FILE__, __LINE__);                                        \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

struct FrameDesc {
  int width, height;
};

// horizontal then vertical 5-tap box blur through the scratch buffer
__global__ void blur_rows(const float* __restrict__ in, float* __restrict__ tmp, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w || y >= h) return;
  float acc = 0.f;
  for (int k = -2; k <= 2; ++k) acc += in[y * w + min(max(x + k, 0), w - 1)];
  tmp[y * w + x] = acc * 0.2f;
}

__global__ void blur_cols(const float* __restrict__ tmp, float* __restrict__ out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w || y >= h) return;
  float acc = 0.f;
  for (int k = -2; k <= 2; ++k) acc += tmp[min(max(y + k, 0), h - 1) * w + x];
  out[y * w + x] = acc * 0.2f;
}

int main() {
  // resolution changes mid-stream, as with adaptive-bitrate input
  const std::vector<FrameDesc> frames = {{640, 360}, {640, 360}, {1280, 720}, {1280, 720},
                                         {1920, 1080}, {1280, 720}, {3840, 2160}, {1920, 1080}};
  const size_t max_pixels = size_t(3840) * 2160;

  float *d_in = nullptr, *d_out = nullptr, *d_scratch = nullptr;
  size_t scratch_pixels = 0;
  CUDA_CHECK(cudaMalloc(&d_in, max_pixels * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, max_pixels * sizeof(float)));
  std::vector<float> host(max_pixels);

  for (size_t f = 0; f < frames.size(); ++f) {
    const FrameDesc fd = frames[f];
    const size_t pixels = size_t(fd.width) * fd.height;
    if (pixels > scratch_pixels) {
      CUDA_CHECK(cudaMalloc(&d_scratch, pixels * sizeof(float)));  // EXPECT: device_memory_leak
      scratch_pixels = pixels;
    }
    for (size_t i = 0; i < pixels; ++i) host[i] = float((i * 131 + f * 17) % 255);
    CUDA_CHECK(cudaMemcpy(d_in, host.data(), pixels * sizeof(float), cudaMemcpyHostToDevice));

    dim3 block(128), grid((fd.width + 127) / 128, fd.height);
    blur_rows<<<grid, block>>>(d_in, d_scratch, fd.width, fd.height);
    blur_cols<<<grid, block>>>(d_scratch, d_out, fd.width, fd.height);
    CUDA_CHECK(cudaGetLastError());

    CUDA_CHECK(cudaMemcpy(host.data(), d_out, pixels * sizeof(float), cudaMemcpyDeviceToHost));
    double mean = 0.0;
    for (size_t i = 0; i < pixels; ++i) mean += host[i];
    std::printf("frame %zu (%dx%d): mean %.3f\n", f, fd.width, fd.height, mean / pixels);
  }

  CUDA_CHECK(cudaFree(d_scratch));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaFree(d_in));
  return 0;
}
