// case: Monte Carlo estimate of pi whose random coordinates are generated into a cudaMalloc buffer by cuRAND's host API before the counting kernel reads them
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <curand.h>

#define NPOINTS (1 << 24)
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

#define CURAND_CHECK(call)                                                 \
  do {                                                                     \
    curandStatus_t s_ = (call);                                            \
    if (s_ != CURAND_STATUS_SUCCESS) {                                     \
      fprintf(stderr, "cuRAND error %d at %s:%d\n", (int)s_, __FILE__,     \
              __LINE__);                                                   \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

__global__ void count_inside(const float *xy, int npoints, unsigned long long *inside) {
  __shared__ unsigned int block_count;
  if (threadIdx.x == 0) block_count = 0;
  __syncthreads();
  unsigned int mine = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < npoints; i += gridDim.x * blockDim.x) {
    float x = xy[2 * i], y = xy[2 * i + 1];
    mine += (x * x + y * y <= 1.0f);
  }
  atomicAdd(&block_count, mine);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(inside, (unsigned long long)block_count);
}

int main() {
  float *d_xy;
  unsigned long long *d_inside;
  CUDA_CHECK(cudaMalloc(&d_xy, 2 * NPOINTS * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_inside, sizeof(unsigned long long)));
  CUDA_CHECK(cudaMemset(d_inside, 0, sizeof(unsigned long long)));

  curandGenerator_t gen;
  CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
  CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, 20261127ULL));
  CURAND_CHECK(curandGenerateUniform(gen, d_xy, 2 * NPOINTS));

  count_inside<<<512, BLOCK>>>(d_xy, NPOINTS, d_inside);
  CUDA_CHECK(cudaGetLastError());

  unsigned long long inside = 0;
  CUDA_CHECK(cudaMemcpy(&inside, d_inside, sizeof(inside), cudaMemcpyDeviceToHost));
  printf("pi ~= %.6f\n", 4.0 * (double)inside / NPOINTS);

  CURAND_CHECK(curandDestroyGenerator(gen));
  CUDA_CHECK(cudaFree(d_xy));
  CUDA_CHECK(cudaFree(d_inside));
  return 0;
}
