// case: naive windowed DFT whose window table is uploaded and only read by the kernel, and whose twiddle table is written by an init kernel and read by the DFT kernel; both tables are freed without a copy-back, which is fine, and the spectrum is copied back
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define NFFT 4096
#define BLOCK 256

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

__global__ void make_twiddles(float2 *tw, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) {
    float s, c;
    sincospif(-2.0f * k / n, &s, &c);
    tw[k] = make_float2(c, s);
  }
}

__global__ void windowed_dft(const float *signal, const float *window, const float2 *tw,
                             float *power, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n / 2) return;
  float re = 0.f, im = 0.f;
  for (int t = 0; t < n; ++t) {
    float x = signal[t] * window[t];
    float2 w = tw[(k * t) % n];
    re += x * w.x;
    im += x * w.y;
  }
  power[k] = re * re + im * im;
}

int main() {
  std::vector<float> h_signal(NFFT), h_window(NFFT), h_power(NFFT / 2);
  for (int t = 0; t < NFFT; ++t) {
    h_signal[t] = sinf(2.f * (float)M_PI * 440.f * t / 44100.f) + 0.3f * sinf(2.f * (float)M_PI * 1000.f * t / 44100.f);
    h_window[t] = 0.5f - 0.5f * cosf(2.f * (float)M_PI * t / (NFFT - 1));
  }

  float *d_signal, *d_window, *d_power;
  float2 *d_tw;
  CUDA_CHECK(cudaMalloc(&d_signal, NFFT * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_window, NFFT * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_tw, NFFT * sizeof(float2)));
  CUDA_CHECK(cudaMalloc(&d_power, (NFFT / 2) * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_signal, h_signal.data(), NFFT * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_window, h_window.data(), NFFT * sizeof(float), cudaMemcpyHostToDevice));

  make_twiddles<<<NFFT / BLOCK, BLOCK>>>(d_tw, NFFT);
  windowed_dft<<<(NFFT / 2 + BLOCK - 1) / BLOCK, BLOCK>>>(d_signal, d_window, d_tw, d_power, NFFT);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(h_power.data(), d_power, (NFFT / 2) * sizeof(float), cudaMemcpyDeviceToHost));

  int peak = 0;
  for (int k = 1; k < NFFT / 2; ++k)
    if (h_power[k] > h_power[peak]) peak = k;
  printf("peak bin %d (%.1f Hz)\n", peak, peak * 44100.0 / NFFT);

  CUDA_CHECK(cudaFree(d_signal));
  CUDA_CHECK(cudaFree(d_window));
  CUDA_CHECK(cudaFree(d_tw));
  CUDA_CHECK(cudaFree(d_power));
  return 0;
}
