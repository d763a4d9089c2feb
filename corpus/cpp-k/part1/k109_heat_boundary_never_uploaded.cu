// case: A 2D heat-diffusion solver uploads the initial field and, by a typo, uploads the boundary values into d_cur again instead of d_bc, so the step kernel reads never-written d_bc; the convergence print also dereferences the device residual scalar on the host.
// expect: uninitialized_device_read=1, host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#define CUDA_CALL(x)                                                           \
  do {                                                                         \
    cudaError_t rc = (x);                                                      \
    if (rc != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s (%s:%d)\n", cudaGetErrorString(rc), __FILE__,   \
                   __LINE__);                                                  \
      std::exit(EXIT_FAILURE);                                                 \
    }                                                                          \
  } while (0)

struct Grid {
  int nx, ny;
  size_t cells() const { return size_t(nx) * ny; }
};

// bc holds the fixed temperature of the left column (ny values) then the right column (ny values)
__global__ void heat_step(const float* __restrict__ cur, float* __restrict__ next,
                          const float* __restrict__ bc, int nx, int ny, float alpha) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  int i = y * nx + x;
  if (x == 0) { next[i] = bc[y]; return; }
  if (x == nx - 1) { next[i] = bc[ny + y]; return; }
  if (y == 0 || y == ny - 1) { next[i] = cur[i]; return; }
  float lap = cur[i - 1] + cur[i + 1] + cur[i - nx] + cur[i + nx] - 4.f * cur[i];
  next[i] = cur[i] + alpha * lap;
}

// largest |next - cur| of the step, as float bits (non-negative floats order like ints)
__global__ void max_delta(const float* __restrict__ a, const float* __restrict__ b, size_t n,
                          float* __restrict__ residual) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) atomicMax(reinterpret_cast<int*>(residual), __float_as_int(fabsf(a[i] - b[i])));
}

static void upload_field(float* dst, const std::vector<float>& src) {
  CUDA_CALL(cudaMemcpy(dst, src.data(), src.size() * sizeof(float), cudaMemcpyHostToDevice));
}

int main(int argc, char** argv) {
  Grid g{512, 512};
  const int steps = argc > 1 ? std::atoi(argv[1]) : 2000;
  const float alpha = 0.2f;

  std::vector<float> h_init(g.cells(), 20.f);
  std::vector<float> h_bc(2 * g.ny);
  for (int y = 0; y < g.ny; ++y) {
    h_bc[y] = 100.f;         // hot wall
    h_bc[g.ny + y] = 0.f;    // cold wall
  }

  float *d_cur, *d_next, *d_bc, *d_residual;
  CUDA_CALL(cudaMalloc(&d_residual, sizeof(float)));
  CUDA_CALL(cudaMalloc(&d_cur, g.cells() * sizeof(float)));
  CUDA_CALL(cudaMalloc(&d_next, g.cells() * sizeof(float)));
  CUDA_CALL(cudaMalloc(&d_bc, 2 * g.ny * sizeof(float)));
  upload_field(d_cur, h_init);
  upload_field(d_cur, h_bc);

  dim3 block(16, 16);
  dim3 grid((g.nx + block.x - 1) / block.x, (g.ny + block.y - 1) / block.y);
  for (int s = 0; s < steps; ++s) {
    heat_step<<<grid, block>>>(d_cur, d_next, d_bc, g.nx, g.ny, alpha);  // EXPECT: uninitialized_device_read
    if (s % 500 == 499) {
      CUDA_CALL(cudaMemset(d_residual, 0, sizeof(float)));
      max_delta<<<(unsigned)((g.cells() + 255) / 256), 256>>>(d_cur, d_next, g.cells(), d_residual);
      CUDA_CALL(cudaDeviceSynchronize());
      const float res = *d_residual;  // EXPECT: host_deref_device_ptr
      std::printf("step %5d  max |dT| = %.6f\n", s + 1, res);
      if (res < 1e-5f) {
        std::swap(d_cur, d_next);
        break;
      }
    }
    std::swap(d_cur, d_next);
  }

  std::vector<float> h_out(g.cells());
  CUDA_CALL(cudaMemcpy(h_out.data(), d_cur, g.cells() * sizeof(float), cudaMemcpyDeviceToHost));
  double mean = 0.0;
  for (float t : h_out) mean += t;
  std::printf("mean temperature %.4f\n", mean / h_out.size());

  CUDA_CALL(cudaFree(d_residual));
  CUDA_CALL(cudaFree(d_bc));
  CUDA_CALL(cudaFree(d_next));
  CUDA_CALL(cudaFree(d_cur));
  return 0;
}
