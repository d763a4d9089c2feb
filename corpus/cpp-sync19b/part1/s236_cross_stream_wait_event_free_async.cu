// case: producer kernel on stream A, consumer on stream B ordered by cudaEventRecord + cudaStreamWaitEvent (a cudaFree of an old cache sits in between but is not what orders them); the feature buffer is released with cudaFreeAsync on stream B after the consumer
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

__global__ void features_kernel(const float* points, float* feat, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) feat[i] = points[i] * points[i];
}

__global__ void classify_kernel(const float* feat, int* label, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) label[i] = feat[i] > 0.25f ? 1 : 0;
}

int main() {
  const int n = 1 << 20;
  std::vector<float> h_points(n);
  std::vector<int> h_label(n);
  for (int i = 0; i < n; ++i) h_points[i] = static_cast<float>(i % 100) / 100.0f;

  cudaStream_t s_a, s_b;
  cudaStreamCreate(&s_a);
  cudaStreamCreate(&s_b);
  cudaEvent_t feat_ready;
  cudaEventCreateWithFlags(&feat_ready, cudaEventDisableTiming);

  float *d_points = nullptr, *d_feat = nullptr, *d_old_cache = nullptr;
  int* d_label = nullptr;
  cudaMalloc(&d_points, n * sizeof(float));
  cudaMalloc(&d_label, n * sizeof(int));
  cudaMalloc(&d_old_cache, 1 << 20);
  cudaMemcpy(d_points, h_points.data(), n * sizeof(float), cudaMemcpyHostToDevice);

  cudaMallocAsync(&d_feat, n * sizeof(float), s_a);
  features_kernel<<<(n + 255) / 256, 256, 0, s_a>>>(d_points, d_feat, n);
  cudaEventRecord(feat_ready, s_a);

  cudaFree(d_old_cache);  // nothing ever used it on the device

  cudaStreamWaitEvent(s_b, feat_ready, 0);
  classify_kernel<<<(n + 255) / 256, 256, 0, s_b>>>(d_feat, d_label, n);
  cudaFreeAsync(d_feat, s_b);  // after the consumer, in s_b's order (which waits for s_a's producer)

  cudaStreamSynchronize(s_b);
  cudaMemcpy(h_label.data(), d_label, n * sizeof(int), cudaMemcpyDeviceToHost);
  long ones = 0;
  for (int v : h_label) ones += v;
  std::printf("%ld of %d labelled 1\n", ones, n);

  cudaStreamSynchronize(s_a);
  cudaFree(d_points);
  cudaFree(d_label);
  cudaEventDestroy(feat_ready);
  cudaStreamDestroy(s_a);
  cudaStreamDestroy(s_b);
  return 0;
}
