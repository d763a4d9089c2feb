// case: near miss: boids flocking step on a non-blocking stream; the neighbour-velocity scratch is freed only after cudaStreamSynchronize, so the free is ordered by a documented wait
// expect: none
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                           \
  do {                                                                        \
    cudaError_t e_ = (call);                                                  \
    if (e_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));        \
      return EXIT_FAILURE;                                                    \
    }                                                                         \
  } while (0)

__global__ void neighbour_mean_velocity(const float2* __restrict__ pos, const float2* __restrict__ vel,
                                        float2* __restrict__ mean_vel, int n, float radius2) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float2 acc = make_float2(0.f, 0.f);
  int count = 0;
  for (int j = 0; j < n; ++j) {
    const float dx = pos[j].x - pos[i].x, dy = pos[j].y - pos[i].y;
    if (dx * dx + dy * dy < radius2) {
      acc.x += vel[j].x;
      acc.y += vel[j].y;
      ++count;
    }
  }
  mean_vel[i] = make_float2(acc.x / count, acc.y / count);
}

__global__ void steer(float2* __restrict__ pos, float2* __restrict__ vel,
                      const float2* __restrict__ mean_vel, int n, float align, float dt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float2 v = vel[i];
  v.x += align * (mean_vel[i].x - v.x);
  v.y += align * (mean_vel[i].y - v.y);
  vel[i] = v;
  pos[i].x += v.x * dt;
  pos[i].y += v.y * dt;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 8192;
  const size_t bytes = n * sizeof(float2);

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  float2 *h_pos = nullptr, *h_vel = nullptr;
  CHECK(cudaMallocHost(&h_pos, bytes));
  CHECK(cudaMallocHost(&h_vel, bytes));
  for (int i = 0; i < n; ++i) {
    h_pos[i] = make_float2(float(i % 128), float(i / 128));
    h_vel[i] = make_float2(std::cos(0.3f * i), std::sin(0.3f * i));
  }

  float2 *d_pos = nullptr, *d_vel = nullptr, *d_mean = nullptr;
  CHECK(cudaMalloc(&d_pos, bytes));
  CHECK(cudaMalloc(&d_vel, bytes));
  CHECK(cudaMalloc(&d_mean, bytes));
  CHECK(cudaMemcpyAsync(d_pos, h_pos, bytes, cudaMemcpyHostToDevice, stream));
  CHECK(cudaMemcpyAsync(d_vel, h_vel, bytes, cudaMemcpyHostToDevice, stream));

  const int threads = 128, blocks = (n + threads - 1) / threads;
  for (int step = 0; step < 20; ++step) {
    neighbour_mean_velocity<<<blocks, threads, 0, stream>>>(d_pos, d_vel, d_mean, n, 4.f);
    steer<<<blocks, threads, 0, stream>>>(d_pos, d_vel, d_mean, n, 0.05f, 0.1f);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(h_vel, d_vel, bytes, cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));

  CHECK(cudaFree(d_mean));
  double order = 0.0, vx = 0.0, vy = 0.0;
  for (int i = 0; i < n; ++i) {
    const double len = std::sqrt(double(h_vel[i].x) * h_vel[i].x + double(h_vel[i].y) * h_vel[i].y) + 1e-12;
    vx += h_vel[i].x / len;
    vy += h_vel[i].y / len;
  }
  order = std::sqrt(vx * vx + vy * vy) / n;
  std::printf("polarisation order parameter: %.4f\n", order);

  CHECK(cudaFree(d_pos));
  CHECK(cudaFree(d_vel));
  CHECK(cudaFreeHost(h_pos));
  CHECK(cudaFreeHost(h_vel));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
