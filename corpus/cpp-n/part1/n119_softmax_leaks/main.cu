// case: Batched softmax inference with two leaks: softmax_layer's stream-ordered row-max scratch is lost when a CUDA_TRY (errors.cuh) after a launch returns early, and the per-batch logits buffer is cudaMalloc'd in the loop body and never freed.
// expect: device_memory_leak=2
#include "errors.cuh"
#include <cmath>

__global__ void row_max(const float* x, float* row_max_out, int rows, int cols) {
  int r = blockIdx.x;
  if (r >= rows || threadIdx.x != 0) return;
  float m = -INFINITY;
  for (int c = 0; c < cols; ++c) m = fmaxf(m, x[r * cols + c]);
  row_max_out[r] = m;
}

__global__ void softmax_rows(const float* x, const float* row_max_in, float* y, int rows, int cols) {
  int r = blockIdx.x;
  if (r >= rows) return;
  __shared__ float s_sum;
  if (threadIdx.x == 0) {
    float s = 0.f;
    for (int c = 0; c < cols; ++c) s += __expf(x[r * cols + c] - row_max_in[r]);
    s_sum = s;
  }
  __syncthreads();
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    y[r * cols + c] = __expf(x[r * cols + c] - row_max_in[r]) / s_sum;
}

static cudaError_t softmax_layer(const float* d_in, float* d_out, int rows, int cols, cudaStream_t s) {
  float* d_rowmax = nullptr;
  CUDA_TRY(cudaMallocAsync(&d_rowmax, rows * sizeof(float), s));  // EXPECT: device_memory_leak
  row_max<<<rows, 32, 0, s>>>(d_in, d_rowmax, rows, cols);
  CUDA_TRY(cudaGetLastError());
  softmax_rows<<<rows, 256, 0, s>>>(d_in, d_rowmax, d_out, rows, cols);
  CUDA_TRY(cudaGetLastError());
  CUDA_TRY(cudaFreeAsync(d_rowmax, s));
  return cudaSuccess;
}

int main() {
  const int rows = 512, cols = 4096, batches = 16;
  const size_t n = size_t(rows) * cols;
  const size_t bytes = n * sizeof(float);

  cudaStream_t stream;
  CUDA_MAIN_CHECK(cudaStreamCreate(&stream));
  float *h_logits, *h_probs, *d_probs;
  CUDA_MAIN_CHECK(cudaMallocHost(&h_logits, bytes * batches));
  CUDA_MAIN_CHECK(cudaMallocHost(&h_probs, bytes * batches));
  CUDA_MAIN_CHECK(cudaMalloc(&d_probs, bytes));
  for (size_t i = 0; i < n * batches; ++i) h_logits[i] = float(int(i % 613) - 306) / 40.0f;

  for (int b = 0; b < batches; ++b) {
    float* d_logits = nullptr;
    CUDA_MAIN_CHECK(cudaMalloc(&d_logits, bytes));  // EXPECT: device_memory_leak
    CUDA_MAIN_CHECK(cudaMemcpyAsync(d_logits, h_logits + b * n, bytes, cudaMemcpyHostToDevice, stream));
    if (softmax_layer(d_logits, d_probs, rows, cols, stream) != cudaSuccess) return 1;
    CUDA_MAIN_CHECK(cudaMemcpyAsync(h_probs + b * n, d_probs, bytes, cudaMemcpyDeviceToHost, stream));
  }
  CUDA_MAIN_CHECK(cudaStreamSynchronize(stream));

  double total = 0.0;
  for (size_t i = 0; i < n * batches; ++i) total += h_probs[i];
  printf("mean row sum = %.6f\n", total / (rows * batches));

  CUDA_MAIN_CHECK(cudaStreamDestroy(stream));
  CUDA_MAIN_CHECK(cudaFree(d_probs));
  CUDA_MAIN_CHECK(cudaFreeHost(h_logits));
  CUDA_MAIN_CHECK(cudaFreeHost(h_probs));
  return 0;
}
