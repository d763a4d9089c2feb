#pragma once
#include <cuda_runtime.h>

// softened pairwise forces against a small set of heavy bodies
__global__ void accumulate_forces_kernel(const float4* bodies, int n, const float4* heavy, int m, float3* force) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float3 f = make_float3(0.0f, 0.0f, 0.0f);
  for (int j = 0; j < m; ++j) {
    float dx = heavy[j].x - bodies[i].x, dy = heavy[j].y - bodies[i].y, dz = heavy[j].z - bodies[i].z;
    float r2 = dx * dx + dy * dy + dz * dz + 1e-3f;
    float s = heavy[j].w * rsqrtf(r2 * r2 * r2);
    f.x += dx * s; f.y += dy * s; f.z += dz * s;
  }
  force[i] = f;
}
