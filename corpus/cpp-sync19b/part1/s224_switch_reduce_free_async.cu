// case: reduction front end allocates its workspace with cudaMallocAsync, switches over reduce modes (each launching two kernels on the stream) and releases the workspace with cudaFreeAsync on that same stream
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

enum class ReduceOp { kMean, kMax, kCount };

__global__ void accumulate_sum_kernel(const float* x, int n, float* ws) {
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += x[i];
  atomicAdd(&ws[0], acc);
}

// x is non-negative, so the int bit patterns order like the floats
__global__ void accumulate_max_kernel(const float* x, int n, float* ws) {
  float m = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) m = fmaxf(m, x[i]);
  atomicMax(reinterpret_cast<int*>(ws), __float_as_int(m));
}

__global__ void accumulate_count_kernel(const float* x, int n, float threshold, float* ws) {
  float c = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) c += x[i] > threshold ? 1.0f : 0.0f;
  atomicAdd(&ws[0], c);
}

__global__ void finalize_kernel(const float* ws, float scale, float* result) { *result = ws[0] * scale; }

float reduce(ReduceOp op, const float* d_x, int n, float* d_result, cudaStream_t stream) {
  float* d_ws = nullptr;
  cudaMallocAsync(&d_ws, sizeof(float), stream);
  cudaMemsetAsync(d_ws, 0, sizeof(float), stream);

  switch (op) {
    case ReduceOp::kMean:
      accumulate_sum_kernel<<<120, 256, 0, stream>>>(d_x, n, d_ws);
      finalize_kernel<<<1, 1, 0, stream>>>(d_ws, 1.0f / n, d_result);
      break;
    case ReduceOp::kMax:
      accumulate_max_kernel<<<120, 256, 0, stream>>>(d_x, n, d_ws);
      finalize_kernel<<<1, 1, 0, stream>>>(d_ws, 1.0f, d_result);
      break;
    case ReduceOp::kCount:
      accumulate_count_kernel<<<120, 256, 0, stream>>>(d_x, n, 0.5f, d_ws);
      finalize_kernel<<<1, 1, 0, stream>>>(d_ws, 1.0f, d_result);
      break;
  }
  cudaFreeAsync(d_ws, stream);  // stream-ordered: runs after the kernels above

  float h_result = 0.0f;
  cudaMemcpyAsync(&h_result, d_result, sizeof(float), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  return h_result;
}

int main() {
  const int n = 1 << 22;
  std::vector<float> h_x(n);
  for (int i = 0; i < n; ++i) h_x[i] = static_cast<float>(i % 1000) / 1000.0f;
  float *d_x = nullptr, *d_result = nullptr;
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_result, sizeof(float));
  cudaMemcpy(d_x, h_x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaStream_t stream;
  cudaStreamCreate(&stream);

  float mean = reduce(ReduceOp::kMean, d_x, n, d_result, stream);
  float mx = reduce(ReduceOp::kMax, d_x, n, d_result, stream);
  float cnt = reduce(ReduceOp::kCount, d_x, n, d_result, stream);
  std::printf("mean=%f max=%f count=%f\n", mean, mx, cnt);

  cudaFree(d_x);
  cudaFree(d_result);
  cudaStreamDestroy(stream);
  return 0;
}
