// case: direct-sum n-body on a non-blocking stream; the force scratch buffer is cudaFreed right after the integrate kernels that read it were enqueued, before any wait on the stream
// expect: relies_on_implicit_sync=1
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                          \
  do {                                                                       \
    cudaError_t e_ = (call);                                                 \
    if (e_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_)); \
      return EXIT_FAILURE;                                                   \
    }                                                                        \
  } while (0)

__global__ void compute_forces(const float4* __restrict__ pos, float3* __restrict__ force,
                               int n, float soft2) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 pi = pos[i];
  float3 f = make_float3(0.f, 0.f, 0.f);
  for (int j = 0; j < n; ++j) {
    const float4 pj = pos[j];
    const float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
    const float inv = rsqrtf(dx * dx + dy * dy + dz * dz + soft2);
    const float s = pj.w * inv * inv * inv;
    f.x += dx * s;
    f.y += dy * s;
    f.z += dz * s;
  }
  force[i] = f;
}

__global__ void integrate(float4* __restrict__ pos, float3* __restrict__ vel,
                          const float3* __restrict__ force, int n, float dt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float3 v = vel[i];
  v.x += force[i].x * dt;
  v.y += force[i].y * dt;
  v.z += force[i].z * dt;
  vel[i] = v;
  float4 p = pos[i];
  p.x += v.x * dt;
  p.y += v.y * dt;
  p.z += v.z * dt;
  pos[i] = p;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 16384;
  const int steps = 10;
  const float dt = 1e-3f, soft2 = 1e-4f;

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  float4* h_pos = nullptr;
  float3* h_vel = nullptr;
  CHECK(cudaMallocHost(&h_pos, n * sizeof(float4)));
  CHECK(cudaMallocHost(&h_vel, n * sizeof(float3)));
  for (int i = 0; i < n; ++i) {
    const float t = 6.2831853f * i / n;
    h_pos[i] = make_float4(std::cos(t), std::sin(t), 0.01f * (i % 7), 1.0f / n);
    h_vel[i] = make_float3(-std::sin(t) * 0.1f, std::cos(t) * 0.1f, 0.f);
  }

  float4* d_pos = nullptr;
  float3* d_vel = nullptr;
  float3* d_force = nullptr;
  CHECK(cudaMalloc(&d_pos, n * sizeof(float4)));
  CHECK(cudaMalloc(&d_vel, n * sizeof(float3)));
  CHECK(cudaMalloc(&d_force, n * sizeof(float3)));
  CHECK(cudaMemcpyAsync(d_pos, h_pos, n * sizeof(float4), cudaMemcpyHostToDevice, stream));
  CHECK(cudaMemcpyAsync(d_vel, h_vel, n * sizeof(float3), cudaMemcpyHostToDevice, stream));

  const int threads = 256, blocks = (n + threads - 1) / threads;
  for (int s = 0; s < steps; ++s) {
    compute_forces<<<blocks, threads, 0, stream>>>(d_pos, d_force, n, soft2);
    integrate<<<blocks, threads, 0, stream>>>(d_pos, d_vel, d_force, n, dt);
  }
  CHECK(cudaGetLastError());

  // Only positions are read back; release the force scratch early.
  CHECK(cudaFree(d_force));  // EXPECT: relies_on_implicit_sync

  CHECK(cudaMemcpyAsync(h_pos, d_pos, n * sizeof(float4), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));

  double cx = 0, cy = 0, cz = 0;
  for (int i = 0; i < n; ++i) {
    cx += h_pos[i].w * h_pos[i].x;
    cy += h_pos[i].w * h_pos[i].y;
    cz += h_pos[i].w * h_pos[i].z;
  }
  std::printf("centre of mass: %.5f %.5f %.5f\n", cx, cy, cz);

  CHECK(cudaFree(d_pos));
  CHECK(cudaFree(d_vel));
  CHECK(cudaFreeHost(h_pos));
  CHECK(cudaFreeHost(h_vel));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
