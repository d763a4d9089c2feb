// case: an SGD step on a stream with stream-ordered allocations that computes the squared gradient norm for clipping into d_norm_sq, but nothing reads it before cudaFreeAsync releases it
// expect: unread_kernel_output=1
#include "sgd_kernels.cuh"

int main() {
  const int n = 1 << 22;
  const size_t bytes = n * sizeof(float);

  float *h_param, *h_grad;
  CUDA_CHECK(cudaMallocHost(&h_param, bytes));
  CUDA_CHECK(cudaMallocHost(&h_grad, bytes));
  for (int i = 0; i < n; ++i) {
    h_param[i] = 0.01f * (float)(i % 100);
    h_grad[i] = (i % 2 ? 1.0f : -1.0f) * 0.001f * (float)(i % 37);
  }

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  float *d_param, *d_grad, *d_norm_sq;
  CUDA_CHECK(cudaMallocAsync(&d_param, bytes, stream));
  CUDA_CHECK(cudaMallocAsync(&d_grad, bytes, stream));
  CUDA_CHECK(cudaMallocAsync(&d_norm_sq, sizeof(float), stream));
  CUDA_CHECK(cudaMemcpyAsync(d_param, h_param, bytes, cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaMemcpyAsync(d_grad, h_grad, bytes, cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaMemsetAsync(d_norm_sq, 0, sizeof(float), stream));

  grad_sq_norm<<<256, kBlock, 0, stream>>>(d_grad, d_norm_sq, n);
  sgd_update<<<(n + kBlock - 1) / kBlock, kBlock, 0, stream>>>(d_param, d_grad, 0.1f, 1e-4f, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(h_param, d_param, bytes, cudaMemcpyDeviceToHost, stream));

  CUDA_CHECK(cudaFreeAsync(d_param, stream));
  CUDA_CHECK(cudaFreeAsync(d_grad, stream));
  CUDA_CHECK(cudaFreeAsync(d_norm_sq, stream)); // EXPECT: unread_kernel_output
  CUDA_CHECK(cudaStreamSynchronize(stream));

  printf("param[1] after step: %f\n", h_param[1]);

  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFreeHost(h_param));
  CUDA_CHECK(cudaFreeHost(h_grad));
  return 0;
}
