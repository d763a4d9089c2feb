// case: a batch loop that grows a device staging buffer lazily (starting as nullptr, freed and reallocated whenever a batch is larger), so it is allocated before every copy and launch that uses it
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define BLOCK 256

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

__global__ void clamp_and_scale(float *v, int n, float lo, float hi, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = fminf(fmaxf(v[i], lo), hi) * s;
}

static std::vector<float> load_batch(int b) {
  std::vector<float> v((size_t)(1000 + b * 7919 % 50000));
  for (size_t i = 0; i < v.size(); ++i) v[i] = (float)((i + b) % 200) - 100.f;
  return v;
}

int main(int argc, char **argv) {
  int num_batches = argc > 1 ? atoi(argv[1]) : 32;

  float *d_buf = nullptr;
  size_t capacity = 0;
  double total = 0.0;

  for (int b = 0; b < num_batches; ++b) {
    std::vector<float> batch = load_batch(b);
    size_t n = batch.size();
    if (d_buf == nullptr || n > capacity) {
      CUDA_CHECK(cudaFree(d_buf));
      CUDA_CHECK(cudaMalloc(&d_buf, n * sizeof(float)));
      capacity = n;
    }
    CUDA_CHECK(cudaMemcpy(d_buf, batch.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    clamp_and_scale<<<(int)((n + BLOCK - 1) / BLOCK), BLOCK>>>(d_buf, (int)n, -50.f, 50.f, 0.02f);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(batch.data(), d_buf, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (float x : batch) total += x;
  }

  printf("processed %d batches, sum %.3f, final capacity %zu floats\n", num_batches, total, capacity);
  CUDA_CHECK(cudaFree(d_buf));
  return 0;
}
