// case: all-pairs n-body integration that copies back only the first few tracked bodies' positions and velocities after the run, byte counts smaller than the buffers
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define NBODIES 16384
#define NUM_TRACKED 8
#define NSTEPS 100
#define BLOCK 256
#define SOFTENING 1e-3f
#define DT 0.01f

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

__global__ void compute_accel(const float4 *pos, float3 *acc, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 pi = pos[i];
  float3 a = make_float3(0.f, 0.f, 0.f);
  for (int j = 0; j < n; ++j) {
    float4 pj = pos[j];
    float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
    float inv = rsqrtf(dx * dx + dy * dy + dz * dz + SOFTENING);
    float s = pj.w * inv * inv * inv;
    a.x += dx * s; a.y += dy * s; a.z += dz * s;
  }
  acc[i] = a;
}

__global__ void integrate(float4 *pos, float3 *vel, const float3 *acc, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float3 v = vel[i];
  v.x += acc[i].x * DT; v.y += acc[i].y * DT; v.z += acc[i].z * DT;
  pos[i].x += v.x * DT; pos[i].y += v.y * DT; pos[i].z += v.z * DT;
  vel[i] = v;
}

int main() {
  float4 *h_pos = (float4 *)malloc(NBODIES * sizeof(float4));
  float3 *h_vel = (float3 *)malloc(NBODIES * sizeof(float3));
  for (int i = 0; i < NBODIES; ++i) {
    float t = 6.2831853f * i / NBODIES;
    h_pos[i] = make_float4(cosf(t) * 10.f, sinf(t) * 10.f, 0.01f * (i % 100), 1.0f);
    h_vel[i] = make_float3(-sinf(t), cosf(t), 0.f);
  }

  float4 *d_pos;
  float3 *d_vel, *d_acc;
  CUDA_CHECK(cudaMalloc(&d_pos, NBODIES * sizeof(float4)));
  CUDA_CHECK(cudaMalloc(&d_vel, NBODIES * sizeof(float3)));
  CUDA_CHECK(cudaMalloc(&d_acc, NBODIES * sizeof(float3)));
  CUDA_CHECK(cudaMemcpy(d_pos, h_pos, NBODIES * sizeof(float4), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_vel, h_vel, NBODIES * sizeof(float3), cudaMemcpyHostToDevice));

  const int grid = (NBODIES + BLOCK - 1) / BLOCK;
  for (int step = 0; step < NSTEPS; ++step) {
    compute_accel<<<grid, BLOCK>>>(d_pos, d_acc, NBODIES);
    integrate<<<grid, BLOCK>>>(d_pos, d_vel, d_acc, NBODIES);
  }
  CUDA_CHECK(cudaGetLastError());

  CUDA_CHECK(cudaMemcpy(h_pos, d_pos, NUM_TRACKED * sizeof(float4), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(h_vel, d_vel, NUM_TRACKED * sizeof(float3), cudaMemcpyDeviceToHost));
  for (int i = 0; i < NUM_TRACKED; ++i)
    printf("body %d: pos (%.3f, %.3f, %.3f) vel (%.3f, %.3f, %.3f)\n", i, h_pos[i].x,
           h_pos[i].y, h_pos[i].z, h_vel[i].x, h_vel[i].y, h_vel[i].z);

  CUDA_CHECK(cudaFree(d_pos));
  CUDA_CHECK(cudaFree(d_vel));
  CUDA_CHECK(cudaFree(d_acc));
  free(h_pos);
  free(h_vel);
  return 0;
}
