// case: SAXPY split into two halves on two streams with pinned buffers; the second half's copy-back starts at the midpoint but copies the whole array's byte count, past the end of both buffers
// expect: copy_out_of_bounds=1
#include "pipeline_config.cuh"

int main() {
  float *h_x, *h_y;
  CUDA_CHECK(cudaMallocHost(&h_x, kTotalBytes));
  CUDA_CHECK(cudaMallocHost(&h_y, kTotalBytes));
  for (int i = 0; i < kElems; ++i) {
    h_x[i] = 1.0f;
    h_y[i] = 2.0f;
  }

  float *d_x, *d_y;
  CUDA_CHECK(cudaMalloc(&d_x, kTotalBytes));
  CUDA_CHECK(cudaMalloc(&d_y, kTotalBytes));

  cudaStream_t s0, s1;
  CUDA_CHECK(cudaStreamCreate(&s0));
  CUDA_CHECK(cudaStreamCreate(&s1));

  const int blocks = (kHalf + kThreads - 1) / kThreads;

  CUDA_CHECK(cudaMemcpyAsync(d_x, h_x, kHalfBytes, cudaMemcpyHostToDevice, s0));
  CUDA_CHECK(cudaMemcpyAsync(d_y, h_y, kHalfBytes, cudaMemcpyHostToDevice, s0));
  saxpy_kernel<<<blocks, kThreads, 0, s0>>>(3.0f, d_x, d_y, kHalf);
  CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, kHalfBytes, cudaMemcpyDeviceToHost, s0));

  CUDA_CHECK(cudaMemcpyAsync(d_x + kHalf, h_x + kHalf, kHalfBytes, cudaMemcpyHostToDevice, s1));
  CUDA_CHECK(cudaMemcpyAsync(d_y + kHalf, h_y + kHalf, kHalfBytes, cudaMemcpyHostToDevice, s1));
  saxpy_kernel<<<blocks, kThreads, 0, s1>>>(3.0f, d_x + kHalf, d_y + kHalf, kHalf);
  CUDA_CHECK(cudaMemcpyAsync(h_y + kHalf, d_y + kHalf, kTotalBytes, cudaMemcpyDeviceToHost, s1)); // EXPECT: copy_out_of_bounds

  CUDA_CHECK(cudaStreamSynchronize(s0));
  CUDA_CHECK(cudaStreamSynchronize(s1));

  int bad = 0;
  for (int i = 0; i < kElems; ++i)
    if (h_y[i] != 5.0f) ++bad;
  printf("%d mismatches\n", bad);

  CUDA_CHECK(cudaStreamDestroy(s0));
  CUDA_CHECK(cudaStreamDestroy(s1));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_y));
  CUDA_CHECK(cudaFreeHost(h_x));
  CUDA_CHECK(cudaFreeHost(h_y));
  return bad != 0;
}
