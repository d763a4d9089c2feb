// case: a particle-advection step whose device buffers start as nullptr and receive memory from an external memory pool (declared, defined in another library) that takes their address, so they are not known to be null at the copies and launch
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define NPART (1 << 20)
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

// provided by libgpupool
extern "C" cudaError_t gpupool_alloc(void **ptr, size_t bytes, cudaStream_t stream);
extern "C" cudaError_t gpupool_free(void *ptr, cudaStream_t stream);

__global__ void advect(float2 *pos, const float2 *vel, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    pos[i].x += vel[i].x * dt;
    pos[i].y += vel[i].y * dt;
  }
}

int main() {
  std::vector<float2> h_pos(NPART), h_vel(NPART);
  for (int i = 0; i < NPART; ++i) {
    h_pos[i] = make_float2((float)(i % 1024), (float)(i / 1024));
    h_vel[i] = make_float2(1.0f, -0.5f);
  }

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));

  float2 *d_pos = nullptr;
  float2 *d_vel = nullptr;
  CUDA_CHECK(gpupool_alloc((void **)&d_pos, NPART * sizeof(float2), stream));
  CUDA_CHECK(gpupool_alloc((void **)&d_vel, NPART * sizeof(float2), stream));

  CUDA_CHECK(cudaMemcpy(d_pos, h_pos.data(), NPART * sizeof(float2), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_vel, h_vel.data(), NPART * sizeof(float2), cudaMemcpyHostToDevice));

  for (int step = 0; step < 10; ++step)
    advect<<<(NPART + BLOCK - 1) / BLOCK, BLOCK, 0, stream>>>(d_pos, d_vel, 0.1f, NPART);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaStreamSynchronize(stream));

  CUDA_CHECK(cudaMemcpy(h_pos.data(), d_pos, NPART * sizeof(float2), cudaMemcpyDeviceToHost));
  printf("particle 0 at (%f, %f)\n", h_pos[0].x, h_pos[0].y);

  CUDA_CHECK(gpupool_free(d_pos, stream));
  CUDA_CHECK(gpupool_free(d_vel, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
