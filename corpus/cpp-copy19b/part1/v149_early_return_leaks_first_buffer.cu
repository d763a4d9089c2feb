// case: a vector-norm helper that returns an error code when its second cudaMalloc fails, losing the first device buffer on that early return
// expect: device_memory_leak=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define BLOCK 256

__global__ void abs_diff_max(const float *a, const float *b, float *block_max, int n) {
  __shared__ float s[BLOCK];
  float m = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    m = fmaxf(m, fabsf(a[i] - b[i]));
  s[threadIdx.x] = m;
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] = fmaxf(s[threadIdx.x], s[threadIdx.x + k]);
    __syncthreads();
  }
  if (threadIdx.x == 0) block_max[blockIdx.x] = s[0];
}

// returns 0 on success and the infinity-norm distance in *out
int linf_distance(const std::vector<float> &a, const std::vector<float> &b, float *out) {
  const int n = (int)a.size();
  const int nblocks = 128;
  float *d_ab = nullptr, *d_max = nullptr;

  if (cudaMalloc(&d_ab, 2 * n * sizeof(float)) != cudaSuccess) return -1; // EXPECT: device_memory_leak
  if (cudaMalloc(&d_max, nblocks * sizeof(float)) != cudaSuccess) return -1;

  cudaMemcpy(d_ab, a.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_ab + n, b.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  abs_diff_max<<<nblocks, BLOCK>>>(d_ab, d_ab + n, d_max, n);

  std::vector<float> h_max(nblocks);
  cudaError_t err = cudaMemcpy(h_max.data(), d_max, nblocks * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d_ab);
  cudaFree(d_max);
  if (err != cudaSuccess) return -1;

  float m = 0.f;
  for (float v : h_max) m = v > m ? v : m;
  *out = m;
  return 0;
}

int main() {
  const int n = 1 << 20;
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = 0.5f * i;
    b[i] = 0.5f * i + ((i % 1000 == 0) ? 0.25f : 0.0f);
  }
  float dist = 0.f;
  if (linf_distance(a, b, &dist) != 0) {
    fprintf(stderr, "linf_distance failed\n");
    return 1;
  }
  printf("||a - b||_inf = %f\n", dist);
  return 0;
}
