// case: QC pass counts outliers into a managed stats struct; the host frees the (already finished) calibration table and then reads the stats, ordered after the counting kernel only by that cudaFree
// expect: relies_on_implicit_sync=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <vector>

struct OutlierStats {
  unsigned int count;
  unsigned int first_index;
};

__global__ void calibrate_kernel(const unsigned short* raw, const float* gain, float* samples, int n, int channels) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) samples[i] = raw[i] * gain[i % channels];
}

__global__ void count_outliers_kernel(const float* samples, int n, float limit, OutlierStats* stats) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && fabsf(samples[i]) > limit) {
    atomicAdd(&stats->count, 1u);
    atomicMin(&stats->first_index, static_cast<unsigned int>(i));
  }
}

int main() {
  const int n = 1 << 22, channels = 64;
  std::vector<unsigned short> h_raw(n);
  std::vector<float> h_gain(channels);
  for (int i = 0; i < n; ++i) h_raw[i] = static_cast<unsigned short>((i * 2654435761u) >> 20);
  for (int c = 0; c < channels; ++c) h_gain[c] = 0.001f * (1 + c % 4);

  unsigned short* d_raw = nullptr;
  float *d_gain = nullptr, *d_samples = nullptr;
  cudaMalloc(&d_raw, n * sizeof(unsigned short));
  cudaMalloc(&d_gain, channels * sizeof(float));
  cudaMalloc(&d_samples, n * sizeof(float));
  cudaMemcpy(d_raw, h_raw.data(), n * sizeof(unsigned short), cudaMemcpyHostToDevice);
  cudaMemcpy(d_gain, h_gain.data(), channels * sizeof(float), cudaMemcpyHostToDevice);

  // phase 1: calibration, finished before the QC pass starts
  calibrate_kernel<<<(n + 255) / 256, 256>>>(d_raw, d_gain, d_samples, n, channels);
  cudaDeviceSynchronize();

  OutlierStats* stats = nullptr;
  cudaMallocManaged(&stats, sizeof(OutlierStats));
  stats->count = 0;
  stats->first_index = 0xffffffffu;

  cudaStream_t qc_stream;
  cudaStreamCreate(&qc_stream);
  count_outliers_kernel<<<(n + 255) / 256, 256, 0, qc_stream>>>(d_samples, n, 12.0f, stats);

  // the calibration inputs are not needed any more
  cudaFree(d_gain);
  cudaFree(d_raw);

  if (stats->count > 0) {  // EXPECT: relies_on_implicit_sync
    std::printf("%u outliers, first at %u\n", stats->count, stats->first_index);
  }

  cudaStreamSynchronize(qc_stream);
  cudaFree(stats);
  cudaFree(d_samples);
  cudaStreamDestroy(qc_stream);
  return 0;
}
