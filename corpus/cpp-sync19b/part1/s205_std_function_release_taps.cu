// case: FIR filter stage keeps its cleanup in a std::function whose lambda cudaFree's the filter taps; the stage calls it right after launching the convolution that reads the taps
// expect: relies_on_implicit_sync=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

__global__ void fir_kernel(const float* signal, const float* taps, int num_taps, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < num_taps; ++k) {
    int j = i - k;
    if (j >= 0) acc += taps[k] * signal[j];
  }
  out[i] = acc;
}

struct FirStage {
  cudaStream_t stream;
  std::vector<float> taps;

  void run(const float* d_signal, float* d_out, int n) {
    float* d_taps = nullptr;
    const size_t tap_bytes = taps.size() * sizeof(float);
    cudaMalloc(&d_taps, tap_bytes);
    cudaMemcpy(d_taps, taps.data(), tap_bytes, cudaMemcpyHostToDevice);

    std::function<void()> release_taps = [d_taps]() { cudaFree(d_taps); };

    fir_kernel<<<(n + 255) / 256, 256, 0, stream>>>(d_signal, d_taps, static_cast<int>(taps.size()), d_out, n);
    release_taps();  // EXPECT: relies_on_implicit_sync
  }
};

int main() {
  const int n = 1 << 20;
  std::vector<float> h_signal(n), h_out(n);
  for (int i = 0; i < n; ++i) h_signal[i] = std::sin(0.01f * i);

  FirStage stage;
  cudaStreamCreate(&stage.stream);
  for (int k = 0; k < 33; ++k) stage.taps.push_back(1.0f / 33.0f);

  float *d_signal = nullptr, *d_out = nullptr;
  cudaMalloc(&d_signal, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMemcpy(d_signal, h_signal.data(), n * sizeof(float), cudaMemcpyHostToDevice);

  stage.run(d_signal, d_out, n);

  cudaStreamSynchronize(stage.stream);
  cudaMemcpy(h_out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("out[1000]=%f\n", h_out[1000]);

  cudaFree(d_signal);
  cudaFree(d_out);
  cudaStreamDestroy(stage.stream);
  return 0;
}
