// case: checkpoint writer copies a 2D field into a new[] buffer with cudaMemcpyAsync and converts it to physical units in place before the stream is synchronized
// expect: relies_on_implicit_sync=1, pageable_async_copy=1
#include <cuda_runtime.h>
#include <cstdio>

__global__ void init_field_kernel(double* field, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  if (x < nx && y < ny) field[static_cast<size_t>(y) * nx + x] = 0.5 * x + 0.25 * y;
}

struct Grid {
  int nx, ny;
  double* d_field;
  cudaStream_t stream;
};

static double checksum(const double* f, size_t n) {
  double s = 0.0;
  for (size_t i = 0; i < n; ++i) s += f[i] * ((i % 7) + 1);
  return s;
}

void write_checkpoint(const Grid& g, double to_kelvin_scale, double to_kelvin_offset) {
  const size_t cells = static_cast<size_t>(g.nx) * g.ny;
  double* h_field = new double[cells];
  cudaMemcpyAsync(h_field, g.d_field, cells * sizeof(double), cudaMemcpyDeviceToHost, g.stream);  // EXPECT: pageable_async_copy
  for (size_t i = 0; i < cells; ++i) {
    h_field[i] = h_field[i] * to_kelvin_scale + to_kelvin_offset;  // EXPECT: relies_on_implicit_sync
  }
  std::printf("checkpoint checksum %.6e\n", checksum(h_field, cells));
  cudaStreamSynchronize(g.stream);
  delete[] h_field;
}

int main() {
  Grid g{2048, 1024, nullptr, nullptr};
  cudaStreamCreate(&g.stream);
  cudaMalloc(&g.d_field, static_cast<size_t>(g.nx) * g.ny * sizeof(double));
  dim3 grid((g.nx + 255) / 256, g.ny);
  init_field_kernel<<<grid, 256, 0, g.stream>>>(g.d_field, g.nx, g.ny);

  write_checkpoint(g, 1.0, 273.15);

  cudaStreamSynchronize(g.stream);
  cudaFree(g.d_field);
  cudaStreamDestroy(g.stream);
  return 0;
}
