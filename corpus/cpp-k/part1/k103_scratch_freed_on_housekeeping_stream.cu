// case: An image histogram takes its per-block scratch from the stream-ordered pool on the main stream, launches two kernels that use it there, then returns it with cudaFreeAsync on a separate non-blocking housekeeping stream that is not ordered after those kernels.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s failed (%s) at line %d\n", #x,                  \
                   cudaGetErrorString(e), __LINE__);                           \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

constexpr int kBins = 256;
constexpr int kBlocks = 120;

struct StreamSet {
  cudaStream_t main = nullptr;
  cudaStream_t housekeeping = nullptr;  // frees, prefetches, telemetry
};

__global__ void partial_histogram(const uint8_t* __restrict__ img, size_t n,
                                  unsigned int* __restrict__ partial) {
  __shared__ unsigned int local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    atomicAdd(&local[img[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    partial[blockIdx.x * kBins + b] = local[b];
}

__global__ void merge_histogram(const unsigned int* __restrict__ partial, int blocks,
                                unsigned int* __restrict__ hist) {
  int b = threadIdx.x;
  if (b >= kBins) return;
  unsigned int sum = 0;
  for (int k = 0; k < blocks; ++k) sum += partial[k * kBins + b];
  hist[b] = sum;
}

static void histogram(const StreamSet& st, const uint8_t* d_img, size_t n,
                      unsigned int* d_hist) {
  unsigned int* d_partial = nullptr;
  const size_t partial_bytes = size_t(kBlocks) * kBins * sizeof(unsigned int);
  CK(cudaMallocAsync(reinterpret_cast<void**>(&d_partial), partial_bytes, st.main));
  partial_histogram<<<kBlocks, 256, 0, st.main>>>(d_img, n, d_partial);
  merge_histogram<<<1, kBins, 0, st.main>>>(d_partial, kBlocks, d_hist);
  CK(cudaGetLastError());
  // give the scratch back without stalling the main stream
  CK(cudaFreeAsync(d_partial, st.housekeeping));  // EXPECT: missing_sync
}

int main() {
  const int width = 3840, height = 2160;
  const size_t n = size_t(width) * height;

  StreamSet st;
  CK(cudaStreamCreateWithFlags(&st.main, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&st.housekeeping, cudaStreamNonBlocking));

  uint8_t* h_img = nullptr;
  unsigned int* h_hist = nullptr;
  CK(cudaMallocHost(reinterpret_cast<void**>(&h_img), n));
  CK(cudaMallocHost(reinterpret_cast<void**>(&h_hist), kBins * sizeof(unsigned int)));
  for (size_t i = 0; i < n; ++i) h_img[i] = static_cast<uint8_t>((i * 2654435761u) >> 24);

  uint8_t* d_img = nullptr;
  unsigned int* d_hist = nullptr;
  CK(cudaMalloc(reinterpret_cast<void**>(&d_img), n));
  CK(cudaMalloc(reinterpret_cast<void**>(&d_hist), kBins * sizeof(unsigned int)));
  CK(cudaMemcpyAsync(d_img, h_img, n, cudaMemcpyHostToDevice, st.main));

  histogram(st, d_img, n, d_hist);

  CK(cudaMemcpyAsync(h_hist, d_hist, kBins * sizeof(unsigned int), cudaMemcpyDeviceToHost,
                     st.main));
  CK(cudaStreamSynchronize(st.main));
  CK(cudaStreamSynchronize(st.housekeeping));

  unsigned long long total = 0;
  int mode = 0;
  for (int b = 0; b < kBins; ++b) {
    total += h_hist[b];
    if (h_hist[b] > h_hist[mode]) mode = b;
  }
  std::printf("pixels %llu (expected %zu), mode bin %d\n", total, n, mode);

  CK(cudaFree(d_hist));
  CK(cudaFree(d_img));
  CK(cudaFreeHost(h_hist));
  CK(cudaFreeHost(h_img));
  CK(cudaStreamDestroy(st.housekeeping));
  CK(cudaStreamDestroy(st.main));
  return total == n ? 0 : 1;
}
