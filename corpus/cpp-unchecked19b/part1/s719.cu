// case: an n-body stepper launches two kernels per time step in a loop, each followed by the file's inline check_launch() that calls cudaGetLastError, before a checked blocking copy back.
// expect: none
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

inline void check(cudaError_t status, const char* context) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", context, cudaGetErrorString(status));
    std::exit(EXIT_FAILURE);
  }
}

inline void check_launch(const char* kernel_name) {
  check(cudaGetLastError(), kernel_name);
}

struct Body { float x, y, z, vx, vy, vz; };

__global__ void compute_forces(const Body* b, float3* acc, int n, float soft2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int j = 0; j < n; ++j) {
    float dx = b[j].x - b[i].x, dy = b[j].y - b[i].y, dz = b[j].z - b[i].z;
    float inv = rsqrtf(dx * dx + dy * dy + dz * dz + soft2);
    float inv3 = inv * inv * inv;
    ax += dx * inv3; ay += dy * inv3; az += dz * inv3;
  }
  acc[i] = make_float3(ax, ay, az);
}

__global__ void integrate(Body* b, const float3* acc, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  b[i].vx += acc[i].x * dt; b[i].vy += acc[i].y * dt; b[i].vz += acc[i].z * dt;
  b[i].x += b[i].vx * dt;   b[i].y += b[i].vy * dt;   b[i].z += b[i].vz * dt;
}

int main() {
  const int n = 4096, steps = 100;
  const float dt = 0.001f, soft2 = 1e-4f;
  std::vector<Body> h_bodies(n);
  for (int i = 0; i < n; ++i) {
    float t = 0.01f * i;
    h_bodies[i] = Body{std::cos(t) * (1 + t), std::sin(t) * (1 + t), 0.1f * std::sin(3 * t), 0, 0, 0};
  }

  Body* d_bodies = nullptr;
  float3* d_acc = nullptr;
  check(cudaMalloc(&d_bodies, n * sizeof(Body)), "cudaMalloc bodies");
  check(cudaMalloc(&d_acc, n * sizeof(float3)), "cudaMalloc acc");
  check(cudaMemcpy(d_bodies, h_bodies.data(), n * sizeof(Body), cudaMemcpyHostToDevice), "upload");

  const int threads = 128, blocks = (n + threads - 1) / threads;
  for (int s = 0; s < steps; ++s) {
    compute_forces<<<blocks, threads>>>(d_bodies, d_acc, n, soft2);
    check_launch("compute_forces");
    integrate<<<blocks, threads>>>(d_bodies, d_acc, n, dt);
    check_launch("integrate");
  }

  check(cudaMemcpy(h_bodies.data(), d_bodies, n * sizeof(Body), cudaMemcpyDeviceToHost), "download");
  double kinetic = 0.0;
  for (const Body& b : h_bodies) kinetic += 0.5 * (b.vx * b.vx + b.vy * b.vy + b.vz * b.vz);
  std::printf("kinetic energy after %d steps: %.6f\n", steps, kinetic);

  check(cudaFree(d_acc), "cudaFree acc");
  check(cudaFree(d_bodies), "cudaFree bodies");
  return 0;
}
