// case: dark-frame subtraction for a camera pipeline; after frame 0 is enqueued the host frees the dark-frame staging buffer (its copy was waited for) and refills the pinned raw buffer for frame 1, which frame 0's async upload may still be reading
// expect: relies_on_implicit_sync=1
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_OK(call)                                                        \
  do {                                                                       \
    cudaError_t rc_ = (call);                                                \
    if (rc_ != cudaSuccess) {                                                \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(rc_)); \
      return EXIT_FAILURE;                                                   \
    }                                                                        \
  } while (0)

__global__ void subtract_dark(const uint16_t* __restrict__ raw, const uint16_t* __restrict__ dark,
                              float* __restrict__ clean, int n, float gain) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) clean[i] = gain * fmaxf(float(raw[i]) - float(dark[i]), 0.f);
}

static uint16_t sensor_sample(int frame, int i) {
  return static_cast<uint16_t>(100 + ((i * 31 + frame * 977) % 3000));
}

static double frame_mean(const float* clean, int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += clean[i];
  return s / n;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096 * 3072;
  const float gain = 0.25f;

  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  uint16_t *h_dark = nullptr, *h_raw = nullptr;
  float* h_clean = nullptr;
  CUDA_OK(cudaMallocHost(&h_dark, n * sizeof(uint16_t)));
  CUDA_OK(cudaMallocHost(&h_raw, n * sizeof(uint16_t)));
  CUDA_OK(cudaMallocHost(&h_clean, n * sizeof(float)));

  uint16_t *d_dark = nullptr, *d_raw = nullptr;
  float* d_clean = nullptr;
  CUDA_OK(cudaMalloc(&d_dark, n * sizeof(uint16_t)));
  CUDA_OK(cudaMalloc(&d_raw, n * sizeof(uint16_t)));
  CUDA_OK(cudaMalloc(&d_clean, n * sizeof(float)));

  // Calibration: upload the dark frame once.
  for (int i = 0; i < n; ++i) h_dark[i] = static_cast<uint16_t>(90 + (i % 20));
  CUDA_OK(cudaMemcpyAsync(d_dark, h_dark, n * sizeof(uint16_t), cudaMemcpyHostToDevice, stream));
  CUDA_OK(cudaStreamSynchronize(stream));

  // Frame 0.
  for (int i = 0; i < n; ++i) h_raw[i] = sensor_sample(0, i);
  CUDA_OK(cudaMemcpyAsync(d_raw, h_raw, n * sizeof(uint16_t), cudaMemcpyHostToDevice, stream));
  subtract_dark<<<(n + 255) / 256, 256, 0, stream>>>(d_raw, d_dark, d_clean, n, gain);
  CUDA_OK(cudaMemcpyAsync(h_clean, d_clean, n * sizeof(float), cudaMemcpyDeviceToHost, stream));

  // The dark frame lives on the device now; drop the host copy.
  CUDA_OK(cudaFreeHost(h_dark));

  // Frame 1: read the sensor into the raw staging buffer while frame 0 is processed.
  for (int i = 0; i < n; ++i) h_raw[i] = sensor_sample(1, i);  // EXPECT: relies_on_implicit_sync

  CUDA_OK(cudaStreamSynchronize(stream));
  std::printf("frame 0 mean %.3f\n", frame_mean(h_clean, n));

  CUDA_OK(cudaMemcpyAsync(d_raw, h_raw, n * sizeof(uint16_t), cudaMemcpyHostToDevice, stream));
  subtract_dark<<<(n + 255) / 256, 256, 0, stream>>>(d_raw, d_dark, d_clean, n, gain);
  CUDA_OK(cudaMemcpyAsync(h_clean, d_clean, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDA_OK(cudaStreamSynchronize(stream));
  std::printf("frame 1 mean %.3f\n", frame_mean(h_clean, n));

  CUDA_OK(cudaFree(d_dark));
  CUDA_OK(cudaFree(d_raw));
  CUDA_OK(cudaFree(d_clean));
  CUDA_OK(cudaFreeHost(h_raw));
  CUDA_OK(cudaFreeHost(h_clean));
  CUDA_OK(cudaStreamDestroy(stream));
  return 0;
}
