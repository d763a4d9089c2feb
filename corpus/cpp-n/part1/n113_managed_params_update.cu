// case: N-body-style step loop keeps its simulation parameters in a cudaMallocManaged struct; after the force kernel that reads the struct is synchronized, the host updates params->time while the integrate kernel (which does not use the struct) may still be running, which faults on devices without concurrent managed access.
// expect: managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

struct SimParams {
  float time;
  float dt;
  float gravity;
  float damping;
  int n;
};

__global__ void apply_forces(const SimParams* p, const float* pos, float* vel) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p->n) return;
  vel[i] = vel[i] * p->damping - p->gravity * p->dt * (1.0f + 0.001f * pos[i]);
}

__global__ void integrate(float* pos, const float* vel, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) pos[i] += vel[i] * dt;
}

int main() {
  const int n = 1 << 20;
  SimParams* params = nullptr;
  CUDA_CHECK(cudaMallocManaged(&params, sizeof(SimParams)));
  params->time = 0.0f;
  params->dt = 1e-3f;
  params->gravity = 9.81f;
  params->damping = 0.999f;
  params->n = n;

  std::vector<float> h_pos(n), h_vel(n, 0.0f);
  for (int i = 0; i < n; ++i) h_pos[i] = float(i % 1000);
  float *d_pos, *d_vel;
  CUDA_CHECK(cudaMalloc(&d_pos, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_vel, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_pos, h_pos.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_vel, h_vel.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  const int grid = (n + 255) / 256;
  for (int step = 0; step < 1000; ++step) {
    apply_forces<<<grid, 256, 0, stream>>>(params, d_pos, d_vel);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    integrate<<<grid, 256, 0, stream>>>(d_pos, d_vel, params->dt, n);
    params->time += params->dt;  // EXPECT: managed_concurrent_access
    if (step % 100 == 99) params->damping *= 0.99f;
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  CUDA_CHECK(cudaMemcpy(h_pos.data(), d_pos, n * sizeof(float), cudaMemcpyDeviceToHost));
  printf("t = %.3f, pos[0] = %.4f\n", params->time, h_pos[0]);

  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(d_pos));
  CUDA_CHECK(cudaFree(d_vel));
  CUDA_CHECK(cudaFree(params));
  return 0;
}
