// case: A small particle integrator reads positions back into a float3 render array with the byte count of the float4 device array (overflowing the 48 KiB host array), and downloads velocities with a cudaMemcpyHostToDevice kind pasted from the upload above it.
// expect: copy_out_of_bounds=1, memcpy_kind_mismatch=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define N_PARTICLES 4096
#define N_STEPS 200

#define CUDA_OK(stmt)                                                          \
  do {                                                                         \
    cudaError_t e__ = (stmt);                                                  \
    if (e__ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e__)); \
      return 1;                                                                \
    }                                                                          \
  } while (0)

// what the OpenGL side consumes: tightly packed xyz
static float3 h_render_pos[N_PARTICLES];

__global__ void integrate(float4* pos, float4* vel, float dt, float3 gravity, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 p = pos[i];
  float4 v = vel[i];
  v.x += gravity.x * dt;
  v.y += gravity.y * dt;
  v.z += gravity.z * dt;
  p.x += v.x * dt;
  p.y += v.y * dt;
  p.z += v.z * dt;
  if (p.y < 0.f) {  // bounce on the floor, w holds the restitution
    p.y = -p.y;
    v.y = -v.y * p.w;
  }
  pos[i] = p;
  vel[i] = v;
}

int main() {
  std::vector<float4> h_pos(N_PARTICLES), h_vel(N_PARTICLES);
  for (int i = 0; i < N_PARTICLES; ++i) {
    float a = 0.0015f * i;
    h_pos[i] = make_float4(std::cos(a) * 5.f, 10.f + (i % 17), std::sin(a) * 5.f, 0.8f);
    h_vel[i] = make_float4(0.f, 0.f, 0.f, 0.f);
  }

  float4 *d_pos = nullptr, *d_vel = nullptr;
  CUDA_OK(cudaMalloc(&d_pos, N_PARTICLES * sizeof(float4)));
  CUDA_OK(cudaMalloc(&d_vel, N_PARTICLES * sizeof(float4)));
  CUDA_OK(cudaMemcpy(d_pos, h_pos.data(), N_PARTICLES * sizeof(float4), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_vel, h_vel.data(), N_PARTICLES * sizeof(float4), cudaMemcpyHostToDevice));

  const float3 g = make_float3(0.f, -9.81f, 0.f);
  const int block = 128;
  for (int s = 0; s < N_STEPS; ++s)
    integrate<<<(N_PARTICLES + block - 1) / block, block>>>(d_pos, d_vel, 1.f / 120.f, g,
                                                           N_PARTICLES);
  CUDA_OK(cudaGetLastError());

  CUDA_OK(cudaMemcpy(h_render_pos, d_pos, N_PARTICLES * sizeof(float4), cudaMemcpyDeviceToHost));  // EXPECT: copy_out_of_bounds
  CUDA_OK(cudaMemcpy(h_vel.data(), d_vel, N_PARTICLES * sizeof(float4), cudaMemcpyHostToDevice));  // EXPECT: memcpy_kind_mismatch

  double kinetic = 0.0, min_y = 1e30;
  for (int i = 0; i < N_PARTICLES; ++i) {
    const float4 v = h_vel[i];
    kinetic += 0.5 * (v.x * v.x + v.y * v.y + v.z * v.z);
    min_y = std::fmin(min_y, h_render_pos[i].y);
  }
  printf("after %d steps: kinetic %.3f, lowest particle at y=%.3f\n", N_STEPS, kinetic, min_y);

  CUDA_OK(cudaFree(d_vel));
  CUDA_OK(cudaFree(d_pos));
  return 0;
}
