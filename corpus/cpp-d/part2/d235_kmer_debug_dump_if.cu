// case: a minimizer counter's debug dump (enabled because the file defines KMER_DEBUG_DUMP 1) prints the first counts straight from the cudaMalloc'd table after a sync; the managed-memory allocation that would make that legal sits under #ifdef KMER_USE_MANAGED, which nothing defines.
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define KMER_DEBUG_DUMP 1
// #define KMER_USE_MANAGED   (only for the Jetson build, which passes -DKMER_USE_MANAGED)

#define checkCudaErrors(val)                                                       \
  do {                                                                             \
    cudaError_t e_ = (val);                                                        \
    if (e_ != cudaSuccess) {                                                       \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(EXIT_FAILURE);                                                     \
    }                                                                              \
  } while (0)

constexpr uint32_t kBuckets = 1u << 20;
constexpr int kReadLen = 150, kK = 15, kW = 10;

__global__ void count_minimizers(const uint8_t* reads, int nreads, uint32_t* counts) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nreads) return;
  const uint8_t* s = reads + (size_t)r * kReadLen;
  for (int w = 0; w + kW + kK <= kReadLen; w += kW) {
    uint32_t best = 0xffffffffu;
    for (int j = w; j < w + kW; ++j) {
      uint32_t code = 0;
      for (int t = 0; t < kK; ++t) code = code * 4u + (s[j + t] & 3u);
      uint32_t h = code * 0x9E3779B1u;
      best = h < best ? h : best;
    }
    atomicAdd(&counts[best % kBuckets], 1u);
  }
}

int main() {
  const int nreads = 200000;
  std::vector<uint8_t> reads(size_t(nreads) * kReadLen);
  for (size_t i = 0; i < reads.size(); ++i) reads[i] = static_cast<uint8_t>((i * 1103515245u + 12345u) >> 16);

  uint8_t* d_reads = nullptr;
  uint32_t* counts = nullptr;
  checkCudaErrors(cudaMalloc(&d_reads, reads.size()));
#ifdef KMER_USE_MANAGED
  checkCudaErrors(cudaMallocManaged(&counts, kBuckets * sizeof(uint32_t)));
#else
  checkCudaErrors(cudaMalloc(&counts, kBuckets * sizeof(uint32_t)));
#endif
  checkCudaErrors(cudaMemcpy(d_reads, reads.data(), reads.size(), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemset(counts, 0, kBuckets * sizeof(uint32_t)));
  count_minimizers<<<(nreads + 255) / 256, 256>>>(d_reads, nreads, counts);
  checkCudaErrors(cudaGetLastError());
  checkCudaErrors(cudaDeviceSynchronize());

#if KMER_DEBUG_DUMP
  std::printf("first buckets:");
  for (int b = 0; b < 8; ++b) std::printf(" %u", counts[b]);  // EXPECT: host_deref_device_ptr
  std::printf("\n");
#endif

  std::vector<uint32_t> h_counts(kBuckets);
  checkCudaErrors(cudaMemcpy(h_counts.data(), counts, kBuckets * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  uint64_t total = 0;
  uint32_t used = 0;
  for (uint32_t c : h_counts) {
    total += c;
    used += c != 0;
  }
  std::printf("%llu minimizers in %u buckets\n", (unsigned long long)total, used);
  checkCudaErrors(cudaFree(counts));
  checkCudaErrors(cudaFree(d_reads));
  return 0;
}
