// case: launcher uploads the knot table, launches the interpolation kernel on its stream and calls the header helper finish_stream() (cudaStreamSynchronize) before cudaFree of the knots
// expect: none
#include <cstdio>
#include <vector>

#include "interp.cuh"
#include "stream_utils.h"

void launch_interpolate(const std::vector<float>& knots, const float* d_xq, float* d_yq, int n, cudaStream_t stream) {
  float* d_knots = nullptr;
  cudaMalloc(&d_knots, knots.size() * sizeof(float));
  cudaMemcpy(d_knots, knots.data(), knots.size() * sizeof(float), cudaMemcpyHostToDevice);
  interp_kernel<<<(n + 255) / 256, 256, 0, stream>>>(d_knots, static_cast<int>(knots.size()), d_xq, d_yq, n);
  finish_stream(stream, "interpolate");
  cudaFree(d_knots);
}

int main() {
  const int n = 1 << 20;
  std::vector<float> knots = {0.0f, 2.0f, 3.0f, 3.5f, 3.0f, 1.0f};
  std::vector<float> h_xq(n), h_yq(n);
  for (int i = 0; i < n; ++i) h_xq[i] = 5.0f * i / n;

  cudaStream_t stream;
  cudaStreamCreate(&stream);
  float *d_xq = nullptr, *d_yq = nullptr;
  cudaMalloc(&d_xq, n * sizeof(float));
  cudaMalloc(&d_yq, n * sizeof(float));
  cudaMemcpy(d_xq, h_xq.data(), n * sizeof(float), cudaMemcpyHostToDevice);

  launch_interpolate(knots, d_xq, d_yq, n, stream);

  cudaMemcpy(h_yq.data(), d_yq, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("y(2.5)=%f\n", h_yq[n / 2]);
  cudaFree(d_xq);
  cudaFree(d_yq);
  cudaStreamDestroy(stream);
  return 0;
}
