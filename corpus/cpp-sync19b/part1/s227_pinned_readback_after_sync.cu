// case: sensor-fusion step copies its fused estimate into cudaMallocHost memory, frees a finished scratch buffer, and reads the pinned result only after cudaStreamSynchronize
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

struct Estimate {
  float x, y, z, confidence;
};

__global__ void prefilter_kernel(const float* raw, float* filtered, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) filtered[i] = 0.25f * raw[i > 0 ? i - 1 : 0] + 0.5f * raw[i] + 0.25f * raw[i < n - 1 ? i + 1 : n - 1];
}

__global__ void fuse_kernel(const float* lidar, const float* radar, int n, Estimate* est) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    float sx = 0.0f, sr = 0.0f;
    for (int i = 0; i < n; i += 64) { sx += lidar[i]; sr += radar[i]; }
    est->x = sx / (n / 64);
    est->y = sr / (n / 64);
    est->z = 0.0f;
    est->confidence = 0.9f;
  }
}

int main() {
  const int n = 1 << 16;
  std::vector<float> h_raw(n);
  for (int i = 0; i < n; ++i) h_raw[i] = static_cast<float>(i % 50);

  float *d_raw = nullptr, *d_lidar = nullptr, *d_radar = nullptr;
  Estimate* d_est = nullptr;
  cudaMalloc(&d_raw, n * sizeof(float));
  cudaMalloc(&d_lidar, n * sizeof(float));
  cudaMalloc(&d_radar, n * sizeof(float));
  cudaMalloc(&d_est, sizeof(Estimate));
  cudaMemcpy(d_raw, h_raw.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_radar, h_raw.data(), n * sizeof(float), cudaMemcpyHostToDevice);

  Estimate* h_est = nullptr;
  cudaMallocHost(&h_est, sizeof(Estimate));
  cudaStream_t stream;
  cudaStreamCreate(&stream);

  prefilter_kernel<<<(n + 255) / 256, 256, 0, stream>>>(d_raw, d_lidar, n);
  cudaStreamSynchronize(stream);  // prefilter done: d_raw is free to go

  fuse_kernel<<<1, 32, 0, stream>>>(d_lidar, d_radar, n, d_est);
  cudaMemcpyAsync(h_est, d_est, sizeof(Estimate), cudaMemcpyDeviceToHost, stream);
  cudaFree(d_raw);
  cudaStreamSynchronize(stream);
  std::printf("estimate (%f, %f) conf %f\n", h_est->x, h_est->y, h_est->confidence);

  cudaFreeHost(h_est);
  cudaFree(d_lidar);
  cudaFree(d_radar);
  cudaFree(d_est);
  cudaStreamDestroy(stream);
  return 0;
}
