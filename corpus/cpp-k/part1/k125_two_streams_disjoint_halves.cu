// case: One device buffer is split in two halves processed concurrently on two streams (each uploads, normalizes and downloads only its own half of shared pinned buffers); a final reduction on the first stream waits for the second stream's event, and the host synchronizes both streams before reading: correct.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CK(call)                                                               \
  do {                                                                         \
    cudaError_t rc = (call);                                                   \
    if (rc != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(rc));  \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

__global__ void normalize(float* v, size_t n, float mean, float inv_std) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) v[i] = (v[i] - mean) * inv_std;
}

__global__ void sum_squares(const float* __restrict__ v, size_t n, float* __restrict__ out) {
  __shared__ float part[256];
  float acc = 0.f;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    acc += v[i] * v[i];
  part[threadIdx.x] = acc;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, part[0]);
}

int main() {
  const size_t n = size_t(1) << 24;
  const size_t half = n / 2;
  const size_t half_bytes = half * sizeof(float);

  float *h_data = nullptr, *h_energy = nullptr;
  CK(cudaMallocHost(&h_data, n * sizeof(float)));
  CK(cudaMallocHost(&h_energy, sizeof(float)));
  for (size_t i = 0; i < n; ++i) h_data[i] = 3.f + std::sin(0.0001f * float(i));

  float *d_data = nullptr, *d_energy = nullptr;
  CK(cudaMalloc(&d_data, n * sizeof(float)));
  CK(cudaMalloc(&d_energy, sizeof(float)));

  cudaStream_t s0, s1;
  CK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  cudaEvent_t second_half_done;
  CK(cudaEventCreateWithFlags(&second_half_done, cudaEventDisableTiming));

  const int block = 256;
  const unsigned grid = static_cast<unsigned>((half + block - 1) / block);
  float* lo = d_data;
  float* hi = d_data + half;

  // first half on s0, second half on s1: the two never touch the same bytes
  CK(cudaMemcpyAsync(lo, h_data, half_bytes, cudaMemcpyHostToDevice, s0));
  CK(cudaMemcpyAsync(hi, h_data + half, half_bytes, cudaMemcpyHostToDevice, s1));
  normalize<<<grid, block, 0, s0>>>(lo, half, 3.f, 2.f);
  normalize<<<grid, block, 0, s1>>>(hi, half, 3.f, 2.f);
  CK(cudaMemcpyAsync(h_data, lo, half_bytes, cudaMemcpyDeviceToHost, s0));
  CK(cudaMemcpyAsync(h_data + half, hi, half_bytes, cudaMemcpyDeviceToHost, s1));
  CK(cudaEventRecord(second_half_done, s1));

  // the reduction reads both halves: order it after s1's work
  CK(cudaStreamWaitEvent(s0, second_half_done, 0));
  CK(cudaMemsetAsync(d_energy, 0, sizeof(float), s0));
  sum_squares<<<120, 256, 0, s0>>>(d_data, n, d_energy);
  CK(cudaGetLastError());
  CK(cudaMemcpyAsync(h_energy, d_energy, sizeof(float), cudaMemcpyDeviceToHost, s0));

  CK(cudaStreamSynchronize(s0));
  CK(cudaStreamSynchronize(s1));

  double check = 0.0;
  for (size_t i = 0; i < n; ++i) check += double(h_data[i]) * h_data[i];
  std::printf("energy on device %.3f, on host %.3f\n", *h_energy, check);

  CK(cudaEventDestroy(second_half_done));
  CK(cudaStreamDestroy(s1));
  CK(cudaStreamDestroy(s0));
  CK(cudaFree(d_energy));
  CK(cudaFree(d_data));
  CK(cudaFreeHost(h_energy));
  CK(cudaFreeHost(h_data));
  return 0;
}
