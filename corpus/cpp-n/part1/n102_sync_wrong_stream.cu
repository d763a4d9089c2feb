// case: Compute stream runs a row softmax and a separate copy stream (ordered after it by an event) downloads the result into pinned memory; the host then synchronizes the compute stream instead of the copy stream and reads h_y while the D2H copy may still be running.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

__global__ void softmax_rows(const float* x, float* y, int rows, int cols) {
  int r = blockIdx.x;
  if (r >= rows) return;
  const float* xr = x + size_t(r) * cols;
  float* yr = y + size_t(r) * cols;
  __shared__ float s_max, s_sum;
  if (threadIdx.x == 0) {
    float m = -INFINITY;
    for (int c = 0; c < cols; ++c) m = fmaxf(m, xr[c]);
    float s = 0.f;
    for (int c = 0; c < cols; ++c) s += __expf(xr[c] - m);
    s_max = m;
    s_sum = s;
  }
  __syncthreads();
  for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = __expf(xr[c] - s_max) / s_sum;
}

int main() {
  const int rows = 8192, cols = 1024;
  const size_t bytes = size_t(rows) * cols * sizeof(float);

  float *h_x, *h_y, *d_x, *d_y;
  CUDA_CHECK(cudaMallocHost(&h_x, bytes));
  CUDA_CHECK(cudaMallocHost(&h_y, bytes));
  CUDA_CHECK(cudaMalloc(&d_x, bytes));
  CUDA_CHECK(cudaMalloc(&d_y, bytes));
  for (size_t i = 0; i < size_t(rows) * cols; ++i) h_x[i] = float((i * 37) % 101) / 50.0f;

  cudaStream_t compute, copy;
  CUDA_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
  cudaEvent_t done;
  CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));

  CUDA_CHECK(cudaMemcpyAsync(d_x, h_x, bytes, cudaMemcpyHostToDevice, compute));
  softmax_rows<<<rows, 256, 0, compute>>>(d_x, d_y, rows, cols);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventRecord(done, compute));

  CUDA_CHECK(cudaStreamWaitEvent(copy, done, 0));
  CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, copy));

  CUDA_CHECK(cudaStreamSynchronize(compute));
  float row0 = 0.f;
  for (int c = 0; c < cols; ++c) row0 += h_y[c];  // EXPECT: missing_sync
  printf("row 0 sums to %.6f (expect 1)\n", row0);

  CUDA_CHECK(cudaStreamSynchronize(copy));
  CUDA_CHECK(cudaEventDestroy(done));
  CUDA_CHECK(cudaStreamDestroy(compute));
  CUDA_CHECK(cudaStreamDestroy(copy));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_y));
  CUDA_CHECK(cudaFreeHost(h_x));
  CUDA_CHECK(cudaFreeHost(h_y));
  return 0;
}
