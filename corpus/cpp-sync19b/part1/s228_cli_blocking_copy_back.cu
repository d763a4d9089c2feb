// case: command-line tool launches on the legacy default stream and brings results back with a blocking cudaMemcpy into a std::vector before freeing the inputs and reading the vector
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void mandelbrot_kernel(const float2* c, int* iters, int n, int max_iter) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float zx = 0.0f, zy = 0.0f;
  int k = 0;
  while (k < max_iter && zx * zx + zy * zy < 4.0f) {
    float t = zx * zx - zy * zy + c[i].x;
    zy = 2.0f * zx * zy + c[i].y;
    zx = t;
    ++k;
  }
  iters[i] = k;
}

int main(int argc, char** argv) {
  const int w = 1024, h = 768, n = w * h;
  const int max_iter = argc > 1 ? std::atoi(argv[1]) : 256;
  std::vector<float2> h_c(n);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) h_c[y * w + x] = make_float2(-2.0f + 3.0f * x / w, -1.2f + 2.4f * y / h);

  float2* d_c = nullptr;
  int* d_iters = nullptr;
  cudaMalloc(&d_c, n * sizeof(float2));
  cudaMalloc(&d_iters, n * sizeof(int));
  cudaMemcpy(d_c, h_c.data(), n * sizeof(float2), cudaMemcpyHostToDevice);

  mandelbrot_kernel<<<(n + 255) / 256, 256>>>(d_c, d_iters, n, max_iter);

  std::vector<int> h_iters(n);
  cudaMemcpy(h_iters.data(), d_iters, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_c);
  cudaFree(d_iters);

  long inside = 0;
  for (int k : h_iters) inside += (k == max_iter);
  std::printf("%ld of %d points inside\n", inside, n);
  return 0;
}
