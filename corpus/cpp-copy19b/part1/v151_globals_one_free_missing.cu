// case: C-style 1D convolution with global device pointers that frees the signal and output buffers but not the filter, still held by its global when main returns
// expect: device_memory_leak=1
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define LEN 65536
#define TAPS 31
#define THREADS 256

float signal_h[LEN];
float filter_h[TAPS];
float result_h[LEN];
float *signal_d;
float *filter_d;
float *result_d;

__global__ void fir(const float *x, const float *h, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < LEN) {
    float acc = 0.0f;
    for (int k = 0; k < TAPS; k++) {
      int j = i - k;
      if (j >= 0) acc += h[k] * x[j];
    }
    y[i] = acc;
  }
}

void init() {
  for (int i = 0; i < LEN; i++) signal_h[i] = (i % 64 < 32) ? 1.0f : -1.0f;
  for (int k = 0; k < TAPS; k++) filter_h[k] = 1.0f / TAPS;
}

int main() {
  init();

  cudaMalloc((void **)&signal_d, LEN * sizeof(float));
  cudaMalloc((void **)&filter_d, TAPS * sizeof(float)); // EXPECT: device_memory_leak
  cudaMalloc((void **)&result_d, LEN * sizeof(float));

  cudaMemcpy(signal_d, signal_h, LEN * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(filter_d, filter_h, TAPS * sizeof(float), cudaMemcpyHostToDevice);

  fir<<<LEN / THREADS, THREADS>>>(signal_d, filter_d, result_d);

  cudaMemcpy(result_h, result_d, LEN * sizeof(float), cudaMemcpyDeviceToHost);

  cudaFree(signal_d);
  cudaFree(result_d);

  float energy = 0.0f;
  for (int i = 0; i < LEN; i++) energy += result_h[i] * result_h[i];
  printf("output energy: %f\n", energy);
  return 0;
}
