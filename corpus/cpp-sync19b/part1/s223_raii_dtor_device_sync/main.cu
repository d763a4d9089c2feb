// case: the heavy-body list lives in a ScopedDeviceArray whose destructor calls cudaDeviceSynchronize before cudaFree, so its scope may end right after the force kernel is launched
// expect: none
#include <cstdio>
#include <vector>

#include "forces.cuh"
#include "scoped_array.h"

int main() {
  const int n = 1 << 18, m = 64;
  std::vector<float4> h_bodies(n), h_heavy(m);
  for (int i = 0; i < n; ++i) h_bodies[i] = make_float4(0.001f * i, 0.0f, 0.0f, 1.0f);
  for (int j = 0; j < m; ++j) h_heavy[j] = make_float4(10.0f * j, 5.0f, 0.0f, 100.0f);
  std::vector<float3> h_force(n);

  cudaStream_t stream;
  cudaStreamCreate(&stream);
  ScopedDeviceArray<float4> d_bodies(n);
  ScopedDeviceArray<float3> d_force(n);
  cudaMemcpy(d_bodies.get(), h_bodies.data(), n * sizeof(float4), cudaMemcpyHostToDevice);

  {
    ScopedDeviceArray<float4> d_heavy(m);
    cudaMemcpy(d_heavy.get(), h_heavy.data(), m * sizeof(float4), cudaMemcpyHostToDevice);
    accumulate_forces_kernel<<<(n + 255) / 256, 256, 0, stream>>>(d_bodies.get(), n, d_heavy.get(), m, d_force.get());
  }  // d_heavy's destructor: cudaDeviceSynchronize, then cudaFree

  cudaMemcpyAsync(h_force.data(), d_force.get(), 16 * sizeof(float3), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  std::printf("force on body 0: %f %f %f\n", h_force[0].x, h_force[0].y, h_force[0].z);

  d_force.reset();
  d_bodies.reset();
  cudaStreamDestroy(stream);
  return 0;
}
