// case: RGB-to-luma on a non-blocking stream with a pinned readback; after releasing the upload staging buffer (its copy was already waited for) the host reads the pinned result, ordered after the async copy only by that cudaFreeHost
// expect: relies_on_implicit_sync=1
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                         \
  do {                                                                      \
    cudaError_t s_ = (call);                                                \
    if (s_ != cudaSuccess) {                                                \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(s_));      \
      return EXIT_FAILURE;                                                  \
    }                                                                       \
  } while (0)

__global__ void rgb_to_luma(const uint8_t* __restrict__ rgb, float* __restrict__ luma, int pixels) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= pixels) return;
  const uint8_t r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
  luma[i] = (0.2126f * r + 0.7152f * g + 0.0722f * b) / 255.f;
}

int main(int argc, char** argv) {
  const int width = argc > 1 ? std::atoi(argv[1]) : 3840;
  const int height = argc > 2 ? std::atoi(argv[2]) : 2160;
  const int pixels = width * height;
  const size_t frame_bytes = size_t(pixels) * 3;

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  uint8_t* h_frame = nullptr;
  float* h_luma = nullptr;
  CHECK(cudaMallocHost(&h_frame, frame_bytes));
  CHECK(cudaMallocHost(&h_luma, pixels * sizeof(float)));
  for (size_t i = 0; i < frame_bytes; ++i) h_frame[i] = static_cast<uint8_t>((i * 7) & 0xff);

  uint8_t* d_frame = nullptr;
  float* d_luma = nullptr;
  CHECK(cudaMalloc(&d_frame, frame_bytes));
  CHECK(cudaMalloc(&d_luma, pixels * sizeof(float)));

  const auto t0 = std::chrono::steady_clock::now();
  CHECK(cudaMemcpyAsync(d_frame, h_frame, frame_bytes, cudaMemcpyHostToDevice, stream));
  CHECK(cudaStreamSynchronize(stream));
  const double upload_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  rgb_to_luma<<<(pixels + 255) / 256, 256, 0, stream>>>(d_frame, d_luma, pixels);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(h_luma, d_luma, pixels * sizeof(float), cudaMemcpyDeviceToHost, stream));

  // Single frame: the upload staging buffer is not needed any more.
  CHECK(cudaFreeHost(h_frame));

  double mean = 0.0;
  for (int i = 0; i < pixels; ++i) mean += h_luma[i];  // EXPECT: relies_on_implicit_sync
  std::printf("upload %.2f ms, mean luma %.4f\n", upload_ms, mean / pixels);

  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaFree(d_frame));
  CHECK(cudaFree(d_luma));
  CHECK(cudaFreeHost(h_luma));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
