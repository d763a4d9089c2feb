// case: windowed DFT power spectrum; when allocating the spectrum fails, the error path cudaFrees the signal while the Hann-window kernel launched just before may still be writing it
// expect: relies_on_implicit_sync=1
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                             \
  do {                                                                          \
    cudaError_t err = (call);                                                   \
    if (err != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err)); \
      return EXIT_FAILURE;                                                      \
    }                                                                           \
  } while (0)

__global__ void apply_hann(float* signal, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) signal[i] *= 0.5f * (1.f - __cosf(6.2831853f * i / (n - 1)));
}

__global__ void dft_power(const float* __restrict__ signal, float* __restrict__ power,
                          int n, int bins) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= bins) return;
  float re = 0.f, im = 0.f;
  for (int t = 0; t < n; ++t) {
    float s, c;
    __sincosf(-6.2831853f * k * t / n, &s, &c);
    re += signal[t] * c;
    im += signal[t] * s;
  }
  power[k] = re * re + im * im;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : (1 << 15);
  const int bins = n / 2 + 1;
  const float sample_rate = 48000.f;

  std::vector<float> signal(n);
  for (int t = 0; t < n; ++t)
    signal[t] = std::sin(6.2831853f * 440.f * t / sample_rate) +
                0.3f * std::sin(6.2831853f * 3000.f * t / sample_rate);

  float* d_signal = nullptr;
  CHECK(cudaMalloc(&d_signal, n * sizeof(float)));
  CHECK(cudaMemcpy(d_signal, signal.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  apply_hann<<<(n + 255) / 256, 256>>>(d_signal, n);

  float* d_power = nullptr;
  if (cudaMalloc(&d_power, bins * sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "cannot allocate %d spectrum bins\n", bins);
    cudaFree(d_signal);  // EXPECT: relies_on_implicit_sync
    return EXIT_FAILURE;
  }

  dft_power<<<(bins + 127) / 128, 128>>>(d_signal, d_power, n, bins);
  CHECK(cudaGetLastError());

  std::vector<float> power(bins);
  CHECK(cudaMemcpy(power.data(), d_power, bins * sizeof(float), cudaMemcpyDeviceToHost));
  int peak = 1;
  for (int k = 2; k < bins; ++k)
    if (power[k] > power[peak]) peak = k;
  std::printf("peak at %.1f Hz\n", peak * sample_rate / n);

  CHECK(cudaFree(d_power));
  CHECK(cudaFree(d_signal));
  return 0;
}
