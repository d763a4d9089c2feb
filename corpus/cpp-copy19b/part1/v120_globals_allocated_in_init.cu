// case: C-style Jacobi 2D stencil with global device pointers that are all allocated in an init() main calls before any copy or launch
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define NX 512
#define NY 512
#define ITERS 100
#define BX 16
#define BY 16

float h_grid[NX * NY];
float *d_grid;
float *d_next;

__global__ void jacobi_step(const float *in, float *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= NX || y >= NY) return;
  if (x == 0 || y == 0 || x == NX - 1 || y == NY - 1) {
    out[y * NX + x] = in[y * NX + x];
    return;
  }
  out[y * NX + x] = 0.25f * (in[y * NX + x - 1] + in[y * NX + x + 1] + in[(y - 1) * NX + x] +
                             in[(y + 1) * NX + x]);
}

void init() {
  for (int y = 0; y < NY; y++)
    for (int x = 0; x < NX; x++) h_grid[y * NX + x] = (y == 0) ? 100.0f : 0.0f;
  cudaMalloc((void **)&d_grid, NX * NY * sizeof(float));
  cudaMalloc((void **)&d_next, NX * NY * sizeof(float));
}

void finish() {
  cudaFree(d_grid);
  cudaFree(d_next);
}

int main() {
  init();

  cudaMemcpy(d_grid, h_grid, NX * NY * sizeof(float), cudaMemcpyHostToDevice);

  dim3 block(BX, BY);
  dim3 grid(NX / BX, NY / BY);
  for (int it = 0; it < ITERS; it++) {
    jacobi_step<<<grid, block>>>(d_grid, d_next);
    jacobi_step<<<grid, block>>>(d_next, d_grid);
  }

  cudaMemcpy(h_grid, d_grid, NX * NY * sizeof(float), cudaMemcpyDeviceToHost);
  printf("center temperature: %f\n", h_grid[(NY / 2) * NX + NX / 2]);

  finish();
  return 0;
}
