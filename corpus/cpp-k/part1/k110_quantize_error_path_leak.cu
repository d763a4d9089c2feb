// case: An int8 quantization helper allocates a one-float device scratch for the abs-max; it frees it on the success path and on the copy-error path, but the early return after a failed cudaMemsetAsync loses it.
// expect: device_memory_leak=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#define RETURN_IF_ERROR(expr)                                                  \
  do {                                                                         \
    cudaError_t status_ = (expr);                                              \
    if (status_ != cudaSuccess) return status_;                                \
  } while (0)

__global__ void absmax_kernel(const float* __restrict__ x, size_t n, float* __restrict__ out) {
  float m = 0.f;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    m = fmaxf(m, fabsf(x[i]));
  for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_down_sync(0xffffffffu, m, off));
  if ((threadIdx.x & 31) == 0) atomicMax(reinterpret_cast<int*>(out), __float_as_int(m));
}

__global__ void quantize_kernel(const float* __restrict__ x, int8_t* __restrict__ q, size_t n,
                                const float* __restrict__ absmax) {
  const float scale = 127.f / fmaxf(*absmax, 1e-12f);
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    q[i] = static_cast<int8_t>(__float2int_rn(x[i] * scale));
}

// Quantizes d_in into d_out and returns the dequantization scale in *scale.
cudaError_t quantize_int8(const float* d_in, int8_t* d_out, size_t n, float* scale,
                          cudaStream_t stream) {
  float* d_absmax = nullptr;
  RETURN_IF_ERROR(cudaMalloc(&d_absmax, sizeof(float)));  // EXPECT: device_memory_leak
  RETURN_IF_ERROR(cudaMemsetAsync(d_absmax, 0, sizeof(float), stream));

  absmax_kernel<<<264, 256, 0, stream>>>(d_in, n, d_absmax);
  quantize_kernel<<<264, 256, 0, stream>>>(d_in, d_out, n, d_absmax);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    cudaStreamSynchronize(stream);
    cudaFree(d_absmax);
    return err;
  }

  float absmax = 0.f;
  err = cudaMemcpyAsync(&absmax, d_absmax, sizeof(float), cudaMemcpyDeviceToHost, stream);
  const cudaError_t sync_err = cudaStreamSynchronize(stream);  // the kernels must be done either way
  if (err == cudaSuccess) err = sync_err;
  cudaFree(d_absmax);
  if (err != cudaSuccess) return err;
  *scale = absmax / 127.f;
  return cudaSuccess;
}

int main() {
  const size_t n = size_t(1) << 24;
  std::vector<float> h_in(n);
  for (size_t i = 0; i < n; ++i) h_in[i] = static_cast<float>((i * 2654435761u) % 20001) / 1000.f - 10.f;

  cudaStream_t stream;
  if (cudaStreamCreate(&stream) != cudaSuccess) return 1;

  float* d_in = nullptr;
  int8_t* d_q = nullptr;
  if (cudaMalloc(&d_in, n * sizeof(float)) != cudaSuccess) return 1;
  if (cudaMalloc(&d_q, n) != cudaSuccess) {
    cudaFree(d_in);
    return 1;
  }
  cudaError_t err = cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice);

  float scale = 0.f;
  if (err == cudaSuccess) err = quantize_int8(d_in, d_q, n, &scale, stream);
  std::vector<int8_t> h_q(n);
  if (err == cudaSuccess) err = cudaMemcpy(h_q.data(), d_q, n, cudaMemcpyDeviceToHost);

  if (err == cudaSuccess) {
    double max_err = 0.0;
    for (size_t i = 0; i < n; i += 4099) {
      double e = std::fabs(h_q[i] * scale - h_in[i]);
      if (e > max_err) max_err = e;
    }
    std::printf("scale %.6f, max abs error (sampled) %.6f\n", scale, max_err);
  } else {
    std::fprintf(stderr, "quantization failed: %s\n", cudaGetErrorString(err));
  }

  cudaFree(d_q);
  cudaFree(d_in);
  cudaStreamDestroy(stream);
  return err == cudaSuccess ? 0 : 1;
}
