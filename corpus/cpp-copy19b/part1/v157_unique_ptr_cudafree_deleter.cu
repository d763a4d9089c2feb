// case: a particle-binning step whose device buffers are owned by std::unique_ptr with a cudaFree deleter, including a path that returns early when the grid is too large
// expect: none
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

struct CudaFreeDeleter {
  void operator()(void *p) const { cudaFree(p); }
};
template <typename T>
using device_ptr = std::unique_ptr<T, CudaFreeDeleter>;

template <typename T>
device_ptr<T> make_device(size_t count) {
  T *raw = nullptr;
  CUDA_CHECK(cudaMalloc(&raw, count * sizeof(T)));
  return device_ptr<T>(raw);
}

__global__ void bin_particles(const float2 *pos, int n, float cell, int gx, int gy, int *counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int cx = min(max((int)(pos[i].x / cell), 0), gx - 1);
  int cy = min(max((int)(pos[i].y / cell), 0), gy - 1);
  atomicAdd(&counts[cy * gx + cx], 1);
}

static int count_per_cell(const std::vector<float2> &particles, float domain, float cell,
                          std::vector<int> &out_counts) {
  const int n = (int)particles.size();
  auto d_pos = make_device<float2>(n);
  CUDA_CHECK(cudaMemcpy(d_pos.get(), particles.data(), n * sizeof(float2), cudaMemcpyHostToDevice));

  const int g = (int)(domain / cell);
  if (g <= 0 || (long long)g * g > (1LL << 26)) {
    fprintf(stderr, "grid of %d x %d cells is out of range\n", g, g);
    return -1;
  }

  auto d_counts = make_device<int>((size_t)g * g);
  CUDA_CHECK(cudaMemset(d_counts.get(), 0, (size_t)g * g * sizeof(int)));
  bin_particles<<<(n + 255) / 256, 256>>>(d_pos.get(), n, cell, g, g, d_counts.get());
  CUDA_CHECK(cudaGetLastError());

  out_counts.resize((size_t)g * g);
  CUDA_CHECK(cudaMemcpy(out_counts.data(), d_counts.get(), (size_t)g * g * sizeof(int), cudaMemcpyDeviceToHost));
  return 0;
}

int main(int argc, char **argv) {
  float cell = argc > 1 ? (float)atof(argv[1]) : 1.0f;
  std::vector<float2> particles(1 << 20);
  for (size_t i = 0; i < particles.size(); ++i)
    particles[i] = make_float2((float)(i % 1000) * 0.128f, (float)(i / 1000 % 1000) * 0.128f);

  std::vector<int> counts;
  if (count_per_cell(particles, 128.0f, cell, counts) != 0) return 1;
  int max_c = 0;
  for (int c : counts) max_c = c > max_c ? c : max_c;
  printf("%zu cells, densest holds %d particles\n", counts.size(), max_c);
  return 0;
}
