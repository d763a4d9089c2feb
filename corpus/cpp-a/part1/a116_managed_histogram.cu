// case: per-frame intensity histogram in managed memory; after launching the histogram kernel the host writes the managed frame metadata (which no kernel uses) and then reads the managed histogram the kernel is still writing, synchronizing only at the end of the iteration
// expect: missing_sync=1, managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "hist: %s\n", cudaGetErrorString(e_));               \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

constexpr int kBins = 256;

struct FrameMeta {
  int frame_index;
  int peak_bin;
  uint32_t peak_count;
};

// Per-block partial histograms into `partial` (gridDim.x * kBins).
__global__ void histogram256(const uint8_t* __restrict__ img, size_t n, unsigned int* __restrict__ partial) {
  __shared__ unsigned int local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    atomicAdd(&local[img[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) partial[blockIdx.x * kBins + b] = local[b];
}

// hist[b] = sum over blocks of partial[., b]
__global__ void reduce_bins(const unsigned int* __restrict__ partial, int blocks, unsigned int* hist) {
  int b = threadIdx.x;
  if (b >= kBins) return;
  unsigned int sum = 0;
  for (int k = 0; k < blocks; ++k) sum += partial[k * kBins + b];
  hist[b] = sum;
}

__global__ void synth_frame(uint8_t* img, size_t n, int frame) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) img[i] = static_cast<uint8_t>((i * 7 + frame * 13) & 0xFF);
}

int main() {
  const size_t pixels = size_t(3840) * 2160;
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  const int hist_blocks = 264;
  uint8_t* d_img = nullptr;
  unsigned int* d_partial = nullptr;
  CUDA_CHECK(cudaMalloc(&d_img, pixels));
  CUDA_CHECK(cudaMalloc(&d_partial, hist_blocks * kBins * sizeof(unsigned int)));
  unsigned int* hist = nullptr;
  FrameMeta* meta = nullptr;
  CUDA_CHECK(cudaMallocManaged(&hist, kBins * sizeof(unsigned int)));
  CUDA_CHECK(cudaMallocManaged(&meta, sizeof(FrameMeta)));

  for (int f = 0; f < 120; ++f) {
    synth_frame<<<(pixels + 255) / 256, 256, 0, s>>>(d_img, pixels, f);
    histogram256<<<hist_blocks, 256, 0, s>>>(d_img, pixels, d_partial);
    reduce_bins<<<1, kBins, 0, s>>>(d_partial, hist_blocks, hist);

    meta->frame_index = f;  // EXPECT: managed_concurrent_access
    int best = 0;
    for (int b = 1; b < kBins; ++b) if (hist[b] > hist[best]) best = b;  // EXPECT: missing_sync
    meta->peak_bin = best;
    meta->peak_count = hist[best];
    CUDA_CHECK(cudaStreamSynchronize(s));
    if (f % 30 == 0) std::printf("frame %d: peak bin %d (%u)\n", meta->frame_index, meta->peak_bin, meta->peak_count);
  }

  CUDA_CHECK(cudaFree(meta));
  CUDA_CHECK(cudaFree(hist));
  CUDA_CHECK(cudaFree(d_partial));
  CUDA_CHECK(cudaFree(d_img));
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}
