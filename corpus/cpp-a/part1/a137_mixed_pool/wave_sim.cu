// case: 1-D wave-equation simulation whose buffers come from a tagged pool (folder case): device, pinned, managed and malloc memory, each released by the function of its allocator through a switch on the same tag, after cudaDeviceSynchronize (near-miss)
// expect: none
#include "host_device_pool.h"

#include <cmath>
#include <cstdio>

__global__ void wave_step(const float* __restrict__ prev, const float* __restrict__ cur, float* __restrict__ next,
                          int n, float c2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= 0 || i >= n - 1) return;
  next[i] = 2.f * cur[i] - prev[i] + c2 * (cur[i - 1] - 2.f * cur[i] + cur[i + 1]);
}

int main() {
  const int n = 1 << 20;
  const size_t bytes = n * sizeof(float);
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  {
    BlockPool pool;
    float* u[3];
    for (int k = 0; k < 3; ++k) u[k] = static_cast<float*>(pool.get(MemKind::Device, bytes).ptr);
    float* h_init = static_cast<float*>(pool.get(MemKind::Pinned, bytes).ptr);
    float* probe = static_cast<float*>(pool.get(MemKind::Managed, 64 * sizeof(float)).ptr);
    float* trace = static_cast<float*>(pool.get(MemKind::Host, 1000 * sizeof(float)).ptr);

    for (int i = 0; i < n; ++i) h_init[i] = std::exp(-1e-6f * float(i - n / 2) * float(i - n / 2));
    CUDA_CHECK(cudaMemcpyAsync(u[0], h_init, bytes, cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(u[1], h_init, bytes, cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemsetAsync(u[2], 0, bytes, s));

    for (int t = 0; t < 1000; ++t) {
      wave_step<<<(n + 255) / 256, 256, 0, s>>>(u[t % 3], u[(t + 1) % 3], u[(t + 2) % 3], n, 0.25f);
      CUDA_CHECK(cudaMemcpyAsync(probe, u[(t + 2) % 3] + n / 4, sizeof(float), cudaMemcpyDeviceToDevice, s));
      CUDA_CHECK(cudaStreamSynchronize(s));
      trace[t] = probe[0];
    }
    float peak = 0.f;
    for (int t = 0; t < 1000; ++t) peak = std::fmax(peak, std::fabs(trace[t]));
    std::printf("peak amplitude at n/4: %f\n", peak);
  }  // pool releases every block with its own allocator's free
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}
