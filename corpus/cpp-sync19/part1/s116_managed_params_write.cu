// case: particle integrator whose SimParams struct is managed memory read by the kernel; after a step is launched the host frees the setup cell list (already waited for) and then rewrites params->dt, ordered after the running kernel only by that cudaFree
// expect: relies_on_implicit_sync=1
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x)                                                                \
  do {                                                                          \
    cudaError_t err__ = (x);                                                    \
    if (err__ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s (%s:%d)\n", cudaGetErrorString(err__), __FILE__, __LINE__); \
      return EXIT_FAILURE;                                                      \
    }                                                                           \
  } while (0)

struct SimParams {
  float dt;
  float gravity;
  float box;
  int n;
};

__global__ void bin_particles(const float2* __restrict__ pos, int* __restrict__ cell,
                              int n, float box, int cells_per_side) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int cx = min(cells_per_side - 1, max(0, int(pos[i].x / box * cells_per_side)));
  const int cy = min(cells_per_side - 1, max(0, int(pos[i].y / box * cells_per_side)));
  cell[i] = cy * cells_per_side + cx;
}

__global__ void integrate(const SimParams* p, float2* __restrict__ pos, float2* __restrict__ vel) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p->n) return;
  float2 v = vel[i];
  float2 x = pos[i];
  v.y -= p->gravity * p->dt;
  x.x += v.x * p->dt;
  x.y += v.y * p->dt;
  if (x.y < 0.f) { x.y = -x.y; v.y = -0.9f * v.y; }
  if (x.x < 0.f || x.x > p->box) { v.x = -v.x; x.x = fminf(fmaxf(x.x, 0.f), p->box); }
  pos[i] = x;
  vel[i] = v;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : (1 << 20);
  const int cells_per_side = 64;

  SimParams* params = nullptr;
  CHECK(cudaMallocManaged(&params, sizeof(SimParams)));
  params->dt = 1e-3f;
  params->gravity = 9.81f;
  params->box = 10.f;
  params->n = n;

  std::vector<float2> h_pos(n), h_vel(n);
  for (int i = 0; i < n; ++i) {
    h_pos[i] = make_float2(10.f * (i % 1000) / 1000.f, 1.f + 5.f * (i / 1000 % 1000) / 1000.f);
    h_vel[i] = make_float2(std::cos(0.1f * i), 0.f);
  }

  float2 *d_pos = nullptr, *d_vel = nullptr;
  int* d_cell = nullptr;
  CHECK(cudaMalloc(&d_pos, n * sizeof(float2)));
  CHECK(cudaMalloc(&d_vel, n * sizeof(float2)));
  CHECK(cudaMalloc(&d_cell, n * sizeof(int)));
  CHECK(cudaMemcpy(d_pos, h_pos.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_vel, h_vel.data(), n * sizeof(float2), cudaMemcpyHostToDevice));

  // Setup: bin the particles once to report the initial occupancy.
  const int threads = 256, blocks = (n + threads - 1) / threads;
  bin_particles<<<blocks, threads>>>(d_pos, d_cell, n, params->box, cells_per_side);
  std::vector<int> h_cell(n);
  CHECK(cudaMemcpy(h_cell.data(), d_cell, n * sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<int> occupancy(cells_per_side * cells_per_side, 0);
  for (int c : h_cell) ++occupancy[c];

  integrate<<<blocks, threads>>>(params, d_pos, d_vel);
  CHECK(cudaGetLastError());
  CHECK(cudaFree(d_cell));

  // Adaptive time step for the next step, based on the setup occupancy.
  int densest = 0;
  for (int c : occupancy) densest = c > densest ? c : densest;
  params->dt = densest > 4 * n / (cells_per_side * cells_per_side) ? 5e-4f : 1e-3f;  // EXPECT: relies_on_implicit_sync

  integrate<<<blocks, threads>>>(params, d_pos, d_vel);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_pos.data(), d_pos, n * sizeof(float2), cudaMemcpyDeviceToHost));
  double ymean = 0.0;
  for (const float2& p : h_pos) ymean += p.y;
  std::printf("mean height %.4f, dt %.1e\n", ymean / n, params->dt);

  CHECK(cudaFree(d_pos));
  CHECK(cudaFree(d_vel));
  CHECK(cudaFree(params));
  return 0;
}
