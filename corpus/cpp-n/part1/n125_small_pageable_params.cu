// case: Particle step loop uploads a small StepParams struct from the stack with cudaMemcpyAsync and rewrites it right away, and downloads a 4-byte active counter into a stack int that it reads right after the call; both are legal for pageable memory (the H2D returns once the bytes are staged, the D2H only once the copy is done) and both are far below the 64 KiB pageable threshold.
// expect: none
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

struct StepParams {
  float dt;
  float drag;
  float floor_y;
  int step;
  float wind[4];
};

__global__ void advance(const StepParams* p, float* y, float* vy, int* active, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (y[i] <= p->floor_y) return;
  vy[i] = vy[i] * (1.0f - p->drag) - 9.81f * p->dt + p->wind[p->step & 3] * p->dt;
  y[i] += vy[i] * p->dt;
  if (y[i] > p->floor_y) atomicAdd(active, 1);
}

int main() {
  const int n = 1 << 20;
  std::vector<float> h_y(n), h_vy(n, 0.0f);
  for (int i = 0; i < n; ++i) h_y[i] = 10.0f + float(i % 100);

  float *d_y, *d_vy;
  int* d_active;
  StepParams* d_params;
  CUDA_CHECK(cudaMalloc(&d_y, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_vy, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_active, sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_params, sizeof(StepParams)));
  CUDA_CHECK(cudaMemcpy(d_y, h_y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_vy, h_vy.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  StepParams params = {1e-3f, 1e-4f, 0.0f, 0, {0.1f, -0.2f, 0.05f, 0.0f}};
  int step = 0;
  for (; step < 100000; ++step) {
    params.step = step;
    CUDA_CHECK(cudaMemcpyAsync(d_params, &params, sizeof(params), cudaMemcpyHostToDevice, stream));
    params.dt = step < 1000 ? 1e-3f : 2e-3f;  // next step's value; the staged copy already holds this one
    CUDA_CHECK(cudaMemsetAsync(d_active, 0, sizeof(int), stream));
    advance<<<(n + 255) / 256, 256, 0, stream>>>(d_params, d_y, d_vy, d_active, n);
    int active = 0;
    CUDA_CHECK(cudaMemcpyAsync(&active, d_active, sizeof(int), cudaMemcpyDeviceToHost, stream));
    if (active == 0) break;
  }
  printf("all particles landed after %d steps\n", step);

  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(d_y));
  CUDA_CHECK(cudaFree(d_vy));
  CUDA_CHECK(cudaFree(d_active));
  CUDA_CHECK(cudaFree(d_params));
  return 0;
}
