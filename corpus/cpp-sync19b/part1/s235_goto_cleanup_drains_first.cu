// case: C-style error handling jumps to a cleanup label from after the launch; the cleanup block calls cudaStreamSynchronize before any cudaFree/cudaFreeHost, so every path waits for the kernel and the copy
// expect: none
#include <cuda_runtime.h>
#include <cstdio>

#define CHECK_GOTO(call, label)                                                                \
  do {                                                                                         \
    cudaError_t e_ = (call);                                                                   \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      status = -1;                                                                             \
      goto label;                                                                              \
    }                                                                                          \
  } while (0)

__global__ void dot_partial_kernel(const float* a, const float* b, int n, float* partial) {
  __shared__ float s[256];
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += a[i] * b[i];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

int cosine_similarity(const float* h_a, const float* h_b, int n, float* result) {
  const int blocks = 80;
  int status = 0;
  float *d_a = nullptr, *d_b = nullptr, *d_partial = nullptr, *h_partial = nullptr;
  cudaStream_t stream = nullptr;
  float dot = 0.0f;

  CHECK_GOTO(cudaStreamCreate(&stream), done);
  CHECK_GOTO(cudaMalloc(&d_a, n * sizeof(float)), cleanup);
  CHECK_GOTO(cudaMalloc(&d_b, n * sizeof(float)), cleanup);
  CHECK_GOTO(cudaMalloc(&d_partial, blocks * sizeof(float)), cleanup);
  CHECK_GOTO(cudaMallocHost(&h_partial, blocks * sizeof(float)), cleanup);
  CHECK_GOTO(cudaMemcpy(d_a, h_a, n * sizeof(float), cudaMemcpyHostToDevice), cleanup);
  CHECK_GOTO(cudaMemcpy(d_b, h_b, n * sizeof(float), cudaMemcpyHostToDevice), cleanup);

  dot_partial_kernel<<<blocks, 256, 0, stream>>>(d_a, d_b, n, d_partial);
  CHECK_GOTO(cudaGetLastError(), cleanup);
  CHECK_GOTO(cudaMemcpyAsync(h_partial, d_partial, blocks * sizeof(float), cudaMemcpyDeviceToHost, stream), cleanup);
  CHECK_GOTO(cudaStreamSynchronize(stream), cleanup);

  for (int i = 0; i < blocks; ++i) dot += h_partial[i];
  *result = dot;

cleanup:
  cudaStreamSynchronize(stream);  // whatever was enqueued must finish before its memory goes
  cudaFreeHost(h_partial);
  cudaFree(d_partial);
  cudaFree(d_b);
  cudaFree(d_a);
  cudaStreamDestroy(stream);
done:
  return status;
}

int main() {
  const int n = 1 << 20;
  float* a = new float[n];
  float* b = new float[n];
  for (int i = 0; i < n; ++i) {
    a[i] = 1.0f;
    b[i] = (i % 2) ? 1.0f : -0.5f;
  }
  float dot = 0.0f;
  int status = cosine_similarity(a, b, n, &dot);
  std::printf("status %d, dot %f\n", status, dot);
  delete[] a;
  delete[] b;
  return status == 0 ? 0 : 1;
}
