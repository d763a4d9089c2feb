// case: A histogram-equalization pass enqueues its readbacks inside a block guarded by a StreamSyncGuard whose destructor synchronizes the stream, and gets its lookup table through a helper that copies and waits before returning; the host reads only after those waits: correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    cudaError_t st_ = (call);                                                  \
    if (st_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(st_));        \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

// Waits for everything enqueued on the stream when the scope ends.
class StreamSyncGuard {
 public:
  explicit StreamSyncGuard(cudaStream_t s) : s_(s) {}
  ~StreamSyncGuard() { CUDA_CHECK(cudaStreamSynchronize(s_)); }
  StreamSyncGuard(const StreamSyncGuard&) = delete;
  StreamSyncGuard& operator=(const StreamSyncGuard&) = delete;

 private:
  cudaStream_t s_;
};

// Copies device -> pinned host and returns once the data is there.
template <typename T>
void download_blocking(T* host, const T* device, size_t count, cudaStream_t s) {
  CUDA_CHECK(cudaMemcpyAsync(host, device, count * sizeof(T), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
}

__global__ void histogram256(const uint8_t* __restrict__ px, size_t n, unsigned* __restrict__ h) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    atomicAdd(&h[px[i]], 1u);
}

__global__ void build_cdf_lut(const unsigned* __restrict__ hist, size_t n, uint8_t* __restrict__ lut) {
  if (threadIdx.x != 0) return;
  unsigned long long acc = 0;
  for (int b = 0; b < 256; ++b) {
    acc += hist[b];
    lut[b] = static_cast<uint8_t>((255ull * acc) / n);
  }
}

__global__ void apply_lut(uint8_t* px, size_t n, const uint8_t* __restrict__ lut) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) px[i] = lut[px[i]];
}

int main() {
  const size_t n = size_t(4096) * 4096;
  uint8_t *h_px, *h_lut;
  unsigned* h_hist;
  CUDA_CHECK(cudaMallocHost(&h_px, n));
  CUDA_CHECK(cudaMallocHost(&h_lut, 256));
  CUDA_CHECK(cudaMallocHost(&h_hist, 256 * sizeof(unsigned)));
  for (size_t i = 0; i < n; ++i) h_px[i] = static_cast<uint8_t>(64 + (i * 40503u >> 9) % 64);

  uint8_t *d_px, *d_lut;
  unsigned* d_hist;
  CUDA_CHECK(cudaMalloc(&d_px, n));
  CUDA_CHECK(cudaMalloc(&d_lut, 256));
  CUDA_CHECK(cudaMalloc(&d_hist, 256 * sizeof(unsigned)));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  CUDA_CHECK(cudaMemcpyAsync(d_px, h_px, n, cudaMemcpyHostToDevice, s));
  CUDA_CHECK(cudaMemsetAsync(d_hist, 0, 256 * sizeof(unsigned), s));
  histogram256<<<160, 256, 0, s>>>(d_px, n, d_hist);
  build_cdf_lut<<<1, 32, 0, s>>>(d_hist, n, d_lut);
  download_blocking(h_lut, d_lut, 256, s);
  std::printf("lut: 64 -> %u, 127 -> %u\n", h_lut[64], h_lut[127]);

  {
    StreamSyncGuard wait_at_scope_end(s);
    apply_lut<<<static_cast<unsigned>((n + 255) / 256), 256, 0, s>>>(d_px, n, d_lut);
    CUDA_CHECK(cudaMemcpyAsync(h_px, d_px, n, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaMemcpyAsync(h_hist, d_hist, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost, s));
  }

  unsigned long long total = 0;
  for (int b = 0; b < 256; ++b) total += h_hist[b];
  unsigned lo = 255, hi = 0;
  for (size_t i = 0; i < n; i += 997) {
    lo = h_px[i] < lo ? h_px[i] : lo;
    hi = h_px[i] > hi ? h_px[i] : hi;
  }
  std::printf("%llu pixels, equalized range [%u, %u]\n", total, lo, hi);

  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(d_hist));
  CUDA_CHECK(cudaFree(d_lut));
  CUDA_CHECK(cudaFree(d_px));
  CUDA_CHECK(cudaFreeHost(h_hist));
  CUDA_CHECK(cudaFreeHost(h_lut));
  CUDA_CHECK(cudaFreeHost(h_px));
  return 0;
}
