// case: a point-cloud centroid tool that allocates managed and device memory, calls exit() when the input file cannot be read or a CUDA call fails (the process ends on purpose), and frees everything on the normal path
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define MAX_POINTS (1 << 20)
#define BLOCK 256

static void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    exit(EXIT_FAILURE);
  }
}

__global__ void sum_points(const float3 *pts, int n, double *acc) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&acc[0], (double)pts[i].x);
    atomicAdd(&acc[1], (double)pts[i].y);
    atomicAdd(&acc[2], (double)pts[i].z);
  }
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "cloud.xyz";

  float3 *pts = nullptr;
  double *d_acc = nullptr;
  check(cudaMallocManaged(&pts, MAX_POINTS * sizeof(float3)), "cudaMallocManaged");
  check(cudaMalloc(&d_acc, 3 * sizeof(double)), "cudaMalloc");

  FILE *f = fopen(path, "r");
  if (!f) {
    perror(path);
    exit(EXIT_FAILURE);
  }
  int n = 0;
  while (n < MAX_POINTS && fscanf(f, "%f %f %f", &pts[n].x, &pts[n].y, &pts[n].z) == 3) ++n;
  fclose(f);
  if (n == 0) {
    fprintf(stderr, "%s: no points\n", path);
    abort();
  }

  check(cudaMemset(d_acc, 0, 3 * sizeof(double)), "cudaMemset");
  sum_points<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(pts, n, d_acc);
  check(cudaGetLastError(), "sum_points");

  double acc[3];
  check(cudaMemcpy(acc, d_acc, sizeof(acc), cudaMemcpyDeviceToHost), "cudaMemcpy");
  printf("centroid of %d points: (%.4f, %.4f, %.4f)\n", n, acc[0] / n, acc[1] / n, acc[2] / n);

  check(cudaFree(d_acc), "cudaFree");
  check(cudaFree(pts), "cudaFree managed");
  return 0;
}
