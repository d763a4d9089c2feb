// case: 2-D heat diffusion on a non-blocking stream; the pinned staging buffer of the initial upload is released with cudaFreeHost right after the async copy that reads it was enqueued
// expect: relies_on_implicit_sync=1
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    const cudaError_t st = (call);                                             \
    if (st != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(st)); \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

__global__ void heat_step(const float* __restrict__ t_old, float* __restrict__ t_new,
                          int nx, int ny, float alpha) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  const int i = y * nx + x;
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    t_new[i] = t_old[i];
    return;
  }
  t_new[i] = t_old[i] + alpha * (t_old[i - 1] + t_old[i + 1] + t_old[i - nx] +
                                 t_old[i + nx] - 4.f * t_old[i]);
}

int main(int argc, char** argv) {
  const int nx = argc > 1 ? std::atoi(argv[1]) : 2048;
  const int ny = argc > 2 ? std::atoi(argv[2]) : 2048;
  const int steps = 500;
  const size_t bytes = size_t(nx) * ny * sizeof(float);

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  float* h_stage = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_stage, bytes));
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x)
      h_stage[size_t(y) * nx + x] = (x > nx / 3 && x < 2 * nx / 3 && y > ny / 3 && y < 2 * ny / 3) ? 100.f : 0.f;

  float *d_a = nullptr, *d_b = nullptr;
  CUDA_CHECK(cudaMalloc(&d_a, bytes));
  CUDA_CHECK(cudaMalloc(&d_b, bytes));
  CUDA_CHECK(cudaMemcpyAsync(d_a, h_stage, bytes, cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaFreeHost(h_stage));  // EXPECT: relies_on_implicit_sync

  const dim3 block(32, 8);
  const dim3 grid((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y);
  for (int s = 0; s < steps; ++s) {
    heat_step<<<grid, block, 0, stream>>>(d_a, d_b, nx, ny, 0.2f);
    std::swap(d_a, d_b);
  }
  CUDA_CHECK(cudaGetLastError());

  float* h_result = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_result, bytes));
  CUDA_CHECK(cudaMemcpyAsync(h_result, d_a, bytes, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));

  double energy = 0.0;
  for (size_t i = 0; i < size_t(nx) * ny; ++i) energy += h_result[i];
  std::printf("total heat after %d steps: %.2f\n", steps, energy);

  CUDA_CHECK(cudaFreeHost(h_result));
  CUDA_CHECK(cudaFree(d_a));
  CUDA_CHECK(cudaFree(d_b));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
