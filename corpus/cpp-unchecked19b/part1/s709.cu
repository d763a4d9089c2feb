// case: a reduction helper launches its kernel and waits with CUDA_CHECK(cudaDeviceSynchronize()) before returning, so the caller's cudaGetLastError check after the call comes too late for the helper's launch.
// expect: unchecked_cuda_result=1
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                     \
  do {                                                                       \
    cudaError_t err = (call);                                                \
    if (err != cudaSuccess) {                                                \
      std::fprintf(stderr, "CUDA error in %s (%s:%d): %s\n", #call,          \
                   __FILE__, __LINE__, cudaGetErrorString(err));             \
      std::exit(EXIT_FAILURE);                                               \
    }                                                                        \
  } while (0)

constexpr int kThreads = 256;

__global__ void reduce_sum(const float* in, float* partial, int n) {
  extern __shared__ float sdata[];
  const int tid = threadIdx.x;
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) v += in[i];
  sdata[tid] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = sdata[0];
}

// Sums n floats already on the device; d_partial holds one float per block.
static float gpu_sum(const float* d_in, float* d_partial, int n, int blocks) {
  reduce_sum<<<blocks, kThreads, kThreads * sizeof(float)>>>(d_in, d_partial, n);  // EXPECT: unchecked_cuda_result
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> partial(blocks);
  CUDA_CHECK(cudaMemcpy(partial.data(), d_partial, blocks * sizeof(float),
                        cudaMemcpyDeviceToHost));
  return std::accumulate(partial.begin(), partial.end(), 0.0f);
}

int main() {
  const int n = 1 << 22;
  const int blocks = 160;
  std::vector<float> h_in(n, 0.25f);

  float *d_in = nullptr, *d_partial = nullptr;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_partial, blocks * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  const float total = gpu_sum(d_in, d_partial, n, blocks);
  CUDA_CHECK(cudaGetLastError());
  std::printf("sum = %.1f (expected %.1f)\n", total, 0.25 * n);

  CUDA_CHECK(cudaFree(d_partial));
  CUDA_CHECK(cudaFree(d_in));
  return 0;
}
