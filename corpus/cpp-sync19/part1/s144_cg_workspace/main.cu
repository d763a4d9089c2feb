// case: near miss: conjugate gradient with device-side scalars on a non-blocking stream; the CgWorkspace destructor at the end of cg_solve synchronizes the stream before its cudaFree calls, and main waits again before reading x
// expect: none
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cg_kernels.cuh"
#include "cg_workspace.cuh"

// Solves A x = b for the 1-D Poisson matrix, x starting at zero; d_x and d_b on the device.
static void cg_solve(const float* d_b, float* d_x, int n, int iters, cudaStream_t stream) {
  CgWorkspace ws(n, stream);
  const int threads = 256, blocks = (n + threads - 1) / threads;
  const int dot_blocks = 256;

  CUDA_CHECK(cudaMemsetAsync(d_x, 0, n * sizeof(float), stream));
  CUDA_CHECK(cudaMemcpyAsync(ws.r, d_b, n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
  CUDA_CHECK(cudaMemcpyAsync(ws.p, d_b, n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
  CUDA_CHECK(cudaMemsetAsync(ws.scal, 0, 3 * sizeof(float), stream));
  dot_accumulate<<<dot_blocks, 256, 0, stream>>>(ws.r, ws.r, ws.scal, n);

  for (int k = 0; k < iters; ++k) {
    laplace_1d<<<blocks, threads, 0, stream>>>(ws.p, ws.Ap, n);
    dot_accumulate<<<dot_blocks, 256, 0, stream>>>(ws.p, ws.Ap, ws.scal + 1, n);
    update_x_r<<<blocks, threads, 0, stream>>>(d_x, ws.r, ws.p, ws.Ap, ws.scal, n);
    dot_accumulate<<<dot_blocks, 256, 0, stream>>>(ws.r, ws.r, ws.scal + 2, n);
    update_p<<<blocks, threads, 0, stream>>>(ws.p, ws.r, ws.scal, n);
    roll_scalars<<<1, 1, 0, stream>>>(ws.scal);
  }
  CUDA_CHECK(cudaGetLastError());
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  const int iters = n / 2;  // CG on this matrix converges within n/2 steps

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  float *h_b = nullptr, *h_x = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_b, n * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_x, n * sizeof(float)));
  const float h = 1.f / (n + 1);
  for (int i = 0; i < n; ++i) h_b[i] = h * h;  // -u'' = 1 with u(0) = u(1) = 0

  float *d_b = nullptr, *d_x = nullptr;
  CUDA_CHECK(cudaMalloc(&d_b, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpyAsync(d_b, h_b, n * sizeof(float), cudaMemcpyHostToDevice, stream));

  cg_solve(d_b, d_x, n, iters, stream);

  CUDA_CHECK(cudaMemcpyAsync(h_x, d_x, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  double err = 0.0;
  for (int i = 0; i < n; ++i) {
    const double t = (i + 1) * double(h);
    err = std::fmax(err, std::fabs(h_x[i] - 0.5 * t * (1.0 - t)));
  }
  std::printf("max error vs exact solution: %.3e\n", err);

  CUDA_CHECK(cudaFree(d_b));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFreeHost(h_b));
  CUDA_CHECK(cudaFreeHost(h_x));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
