// case: training loop with a host-side telemetry ring in managed memory allocated with cudaMemAttachHost; the host writes it while kernels run, which CUDA allows for host-attached managed memory the kernels never touch; the global-attached loss is read only after cudaDeviceSynchronize (near-miss)
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "train: %s:%d %s\n", __FILE__, __LINE__,             \
                   cudaGetErrorString(e_));                                     \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

struct TelemetryRecord {
  int iteration;
  float lr;
  float last_loss;
};

// linear regression: w -= lr * grad, loss accumulated into *loss
__global__ void sgd_step(const float* __restrict__ X, const float* __restrict__ y, float* w,
                         float* loss, int rows, int cols, float lr) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float pred = 0.f;
  for (int c = 0; c < cols; ++c) pred += X[r * cols + c] * w[c];
  float err = pred - y[r];
  atomicAdd(loss, err * err / rows);
  for (int c = 0; c < cols; ++c) atomicAdd(&w[c], -lr * err * X[r * cols + c] / rows);
}

int main() {
  const int rows = 1 << 16, cols = 32, iters = 300, ring = 1024;
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));

  float *X = nullptr, *y = nullptr, *w = nullptr;
  CUDA_CHECK(cudaMalloc(&X, size_t(rows) * cols * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&y, rows * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&w, cols * sizeof(float)));
  CUDA_CHECK(cudaMemsetAsync(X, 0, size_t(rows) * cols * sizeof(float), s));
  CUDA_CHECK(cudaMemsetAsync(y, 0, rows * sizeof(float), s));
  CUDA_CHECK(cudaMemsetAsync(w, 0, cols * sizeof(float), s));

  float* loss = nullptr;  // read by the host after each synchronize
  CUDA_CHECK(cudaMallocManaged(&loss, sizeof(float), cudaMemAttachGlobal));
  TelemetryRecord* telemetry = nullptr;  // host-only bookkeeping
  CUDA_CHECK(cudaMallocManaged(&telemetry, ring * sizeof(TelemetryRecord), cudaMemAttachHost));

  float lr = 0.05f;
  float last = 0.f;
  for (int it = 0; it < iters; ++it) {
    CUDA_CHECK(cudaDeviceSynchronize());
    *loss = 0.f;
    sgd_step<<<(rows + 255) / 256, 256, 0, s>>>(X, y, w, loss, rows, cols, lr);
    // While sgd_step runs: record the iteration in the host-attached ring.
    TelemetryRecord& rec = telemetry[it % ring];
    rec.iteration = it;
    rec.lr = lr;
    rec.last_loss = last;
    if (it > 0 && it % 100 == 0) lr *= 0.5f;
    CUDA_CHECK(cudaDeviceSynchronize());
    last = *loss;
  }
  std::printf("final loss %g (lr %g, %d records)\n", last, lr, iters < ring ? iters : ring);

  CUDA_CHECK(cudaFree(telemetry));
  CUDA_CHECK(cudaFree(loss));
  CUDA_CHECK(cudaFree(w));
  CUDA_CHECK(cudaFree(y));
  CUDA_CHECK(cudaFree(X));
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}
