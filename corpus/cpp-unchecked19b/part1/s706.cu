// case: a 1D stencil checks every call through an inline check(cudaError_t, const char*) but launches and copies back with check(cudaMemcpy(...)) directly, never reading cudaGetLastError after the launch.
// expect: unchecked_cuda_result=1
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

constexpr int RADIUS = 3;

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s failed: %s (%s)\n", what, cudaGetErrorString(status),
                 cudaGetErrorName(status));
    std::exit(EXIT_FAILURE);
  }
}

__global__ void stencil_1d(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (i < RADIUS || i >= n - RADIUS) {
    out[i] = in[i];
    return;
  }
  float sum = 0.0f;
  for (int k = -RADIUS; k <= RADIUS; ++k) sum += in[i + k];
  out[i] = sum / (2 * RADIUS + 1);
}

int main() {
  const int n = 1 << 20;
  const size_t bytes = n * sizeof(float);
  std::vector<float> h_in(n), h_out(n);
  for (int i = 0; i < n; ++i) h_in[i] = std::sin(i * 0.001f);

  float* d_in = nullptr;
  float* d_out = nullptr;
  check(cudaMalloc(&d_in, bytes), "cudaMalloc d_in");
  check(cudaMalloc(&d_out, bytes), "cudaMalloc d_out");
  check(cudaMemcpy(d_in, h_in.data(), bytes, cudaMemcpyHostToDevice), "upload");

  const int threads = 512;
  stencil_1d<<<(n + threads - 1) / threads, threads>>>(d_in, d_out, n);  // EXPECT: unchecked_cuda_result
  check(cudaMemcpy(h_out.data(), d_out, bytes, cudaMemcpyDeviceToHost), "download");

  float worst = 0.0f;
  for (int i = RADIUS; i < n - RADIUS; ++i) {
    float ref = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k) ref += h_in[i + k];
    ref /= (2 * RADIUS + 1);
    worst = std::fmax(worst, std::fabs(ref - h_out[i]));
  }
  std::printf("stencil max abs error %.3e\n", worst);

  check(cudaFree(d_in), "cudaFree d_in");
  check(cudaFree(d_out), "cudaFree d_out");
  return worst < 1e-5f ? 0 : 1;
}
