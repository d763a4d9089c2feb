// case: an audio Conv1d layer class whose set_params() checks both shapes but uploads only the bias, so forward() launches a kernel that reads the weight buffer nothing ever wrote
// expect: uninitialized_device_read=1
#include "conv1d.cuh"
#include <cmath>

int main() {
  const int in_ch = 16, out_ch = 32, ksize = 5, len = 16000;
  Conv1d conv(in_ch, out_ch, ksize);

  std::vector<float> w(conv.weight_count()), b(out_ch, 0.0f);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.05f * std::cos(0.1f * (float)i);
  conv.set_params(w, b);

  std::vector<float> h_x((size_t)in_ch * len), h_y((size_t)out_ch * len);
  for (size_t i = 0; i < h_x.size(); ++i) h_x[i] = std::sin(0.002f * (float)i);

  float *d_x, *d_y;
  CUDA_CHECK(cudaMalloc(&d_x, h_x.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_y, h_y.size() * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_x, h_x.data(), h_x.size() * sizeof(float), cudaMemcpyHostToDevice));

  conv.forward(d_x, d_y, len);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(h_y.data(), d_y, h_y.size() * sizeof(float), cudaMemcpyDeviceToHost));

  float peak = 0.f;
  for (float v : h_y) peak = std::fmax(peak, std::fabs(v));
  printf("peak output %f\n", peak);

  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_y));
  return 0;
}
