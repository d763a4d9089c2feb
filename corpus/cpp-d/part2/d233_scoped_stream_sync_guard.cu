// case: a k-mer spectrum stage enqueues its kernel and device-to-host copy inside a block holding a ScopedStreamSync guard whose destructor synchronizes the stream (compiled in because the file defines PIPELINE_SYNC_ON_EXIT to 1); the host reads the pinned spectrum only after the block, or not at all on the early-return path; correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define PIPELINE_SYNC_ON_EXIT 1

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

class ScopedStreamSync {
 public:
  explicit ScopedStreamSync(cudaStream_t s) : s_(s) {}
  ~ScopedStreamSync() {
#if PIPELINE_SYNC_ON_EXIT
    cudaStreamSynchronize(s_);
#endif
  }
  ScopedStreamSync(const ScopedStreamSync&) = delete;
  ScopedStreamSync& operator=(const ScopedStreamSync&) = delete;

 private:
  cudaStream_t s_;
};

constexpr int kMaxMultiplicity = 256;

__global__ void spectrum(const unsigned int* counts, size_t n, unsigned int* hist) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&hist[min(counts[i], (unsigned)kMaxMultiplicity - 1)], 1u);
}

__global__ void fake_counts(unsigned int* counts, size_t n, unsigned int seed) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) counts[i] = ((i * 2654435761u) ^ seed) % 97;
}

// Returns false without producing a spectrum when the launch fails.
static bool compute_spectrum(cudaStream_t s, const unsigned int* d_counts, size_t n, unsigned int* d_hist,
                             unsigned int* h_hist) {
  ScopedStreamSync guard(s);
  CUDA_CHECK(cudaMemsetAsync(d_hist, 0, kMaxMultiplicity * sizeof(unsigned int), s));
  spectrum<<<static_cast<unsigned>((n + 255) / 256), 256, 0, s>>>(d_counts, n, d_hist);
  if (cudaGetLastError() != cudaSuccess) return false;  // guard still waits for the memset
  CUDA_CHECK(cudaMemcpyAsync(h_hist, d_hist, kMaxMultiplicity * sizeof(unsigned int), cudaMemcpyDeviceToHost, s));
  return true;
}  // ~ScopedStreamSync: cudaStreamSynchronize(s)

int main() {
  const size_t n = 1u << 24;
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  unsigned int *d_counts = nullptr, *d_hist = nullptr, *h_hist = nullptr;
  CUDA_CHECK(cudaMalloc(&d_counts, n * sizeof(unsigned int)));
  CUDA_CHECK(cudaMalloc(&d_hist, kMaxMultiplicity * sizeof(unsigned int)));
  CUDA_CHECK(cudaMallocHost(&h_hist, kMaxMultiplicity * sizeof(unsigned int)));

  for (unsigned int round = 0; round < 4; ++round) {
    fake_counts<<<static_cast<unsigned>((n + 255) / 256), 256, 0, s>>>(d_counts, n, round);
    if (!compute_spectrum(s, d_counts, n, d_hist, h_hist)) {
      std::fprintf(stderr, "round %u: launch failed\n", round);
      continue;
    }
    unsigned int trough = 1;
    for (int m = 2; m < kMaxMultiplicity; ++m)
      if (h_hist[m] < h_hist[trough]) trough = m;
    std::printf("round %u: error/solid k-mer boundary at multiplicity %u\n", round, trough);
  }

  {
    ScopedStreamSync drain(s);
    CUDA_CHECK(cudaMemsetAsync(d_counts, 0, n * sizeof(unsigned int), s));
  }
  CUDA_CHECK(cudaFreeHost(h_hist));
  CUDA_CHECK(cudaFree(d_hist));
  CUDA_CHECK(cudaFree(d_counts));
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}
