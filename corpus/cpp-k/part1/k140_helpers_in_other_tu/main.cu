// case: A prefix-scan tool allocates through helpers defined in io_helpers.cu (pinned host and device buffers), uploads on its non-blocking stream, scans, and reads the result only after download_wait(), which synchronizes the stream before returning; every buffer is released: correct.
// expect: none
#include "io_helpers.h"

#include <cstdio>

constexpr int kBlock = 1024;

// inclusive scan of each kBlock-element segment (Hillis-Steele in shared memory)
__global__ void segment_scan(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  __shared__ float buf[2][kBlock];
  const size_t i = blockIdx.x * (size_t)kBlock + threadIdx.x;
  int src = 0;
  buf[0][threadIdx.x] = i < n ? in[i] : 0.f;
  __syncthreads();
  for (int off = 1; off < kBlock; off <<= 1) {
    float v = buf[src][threadIdx.x];
    if (threadIdx.x >= off) v += buf[src][threadIdx.x - off];
    buf[1 - src][threadIdx.x] = v;
    src = 1 - src;
    __syncthreads();
  }
  if (i < n) out[i] = buf[src][threadIdx.x];
}

int main() {
  const size_t n = size_t(1) << 24;
  cudaStream_t stream;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) return 1;

  float* h_in = pinned_alloc(n);
  float* h_out = pinned_alloc(n);
  float* d_in = device_alloc(n);
  float* d_out = device_alloc(n);
  for (size_t i = 0; i < n; ++i) h_in[i] = 1.f;

  upload_async(d_in, h_in, n, stream);
  segment_scan<<<static_cast<unsigned>((n + kBlock - 1) / kBlock), kBlock, 0, stream>>>(d_in, d_out, n);
  download_wait(h_out, d_out, n, stream);

  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i)
    if (h_out[i] != float(i % kBlock + 1)) ++wrong;
  std::printf("%zu of %zu prefix sums wrong\n", wrong, n);

  device_release(d_out);
  device_release(d_in);
  pinned_release(h_out);
  pinned_release(h_in);
  cudaStreamDestroy(stream);
  return wrong == 0 ? 0 : 1;
}
