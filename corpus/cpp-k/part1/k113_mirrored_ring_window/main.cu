// case: A streaming smoother keeps samples in a VMM ring mapped twice back to back (vmm_ring.cuh); its kernel appends through the canonical view and, after __syncthreads, reads each moving-average window through the mirror view, with no fence.proxy.alias between the two proxies.
// expect: unfenced_vmm_alias=1
#include "vmm_ring.cuh"

#include <cmath>
#include <vector>

#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_));  \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

constexpr int kWindow = 64;
constexpr int kBatch = 512;  // samples appended per launch, one block

// Appends `len` samples at `tail` through the canonical view, then each thread averages the
// kWindow samples ending at its own sample. The window is read through the mirror view so that
// a window crossing the start of the ring stays contiguous: hi[pos - k] for pos - k < 0 lands
// at the end of the canonical view.
__global__ void append_and_smooth(float* lo, const float* hi, int cap, int tail,
                                  const float* __restrict__ samples, int len,
                                  float* __restrict__ smoothed) {
  const int i = threadIdx.x;
  const int pos = (tail + i) % cap;
  if (i < len) lo[pos] = samples[i];
  __syncthreads();
  if (i >= len) return;
  float acc = 0.f;
  for (int k = 0; k < kWindow; ++k) acc += hi[pos - k];
  smoothed[i] = acc * (1.f / kWindow);
}

int main() {
  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaFree(0));  // make the primary context current for the driver calls

  const int batches = 256;
  const size_t total = size_t(batches) * kBatch;

  float* h_samples = nullptr;
  float* h_smoothed = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_samples, total * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_smoothed, total * sizeof(float)));
  for (size_t i = 0; i < total; ++i) h_samples[i] = std::sin(0.01f * i) + 0.1f * ((i * 7919) % 13);

  float *d_batch, *d_smoothed;
  CUDA_CHECK(cudaMalloc(&d_batch, kBatch * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_smoothed, total * sizeof(float)));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));

  {
    MirroredRing<float> ring(64 * 1024);
    const int cap = static_cast<int>(ring.capacity());
    CU_CHECK(cuMemsetD32Async(ring.raw(), 0, ring.capacity(), stream));

    int tail = 0;
    for (int b = 0; b < batches; ++b) {
      CUDA_CHECK(cudaMemcpyAsync(d_batch, h_samples + size_t(b) * kBatch, kBatch * sizeof(float),
                                 cudaMemcpyHostToDevice, stream));
      append_and_smooth<<<1, kBatch, 0, stream>>>(ring.lo(), ring.hi(), cap, tail, d_batch,  // EXPECT: unfenced_vmm_alias
                                                  kBatch, d_smoothed + size_t(b) * kBatch);
      CUDA_CHECK(cudaGetLastError());
      tail = (tail + kBatch) % cap;
    }
    CUDA_CHECK(cudaMemcpyAsync(h_smoothed, d_smoothed, total * sizeof(float),
                               cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  double mean = 0.0;
  for (size_t i = 0; i < total; ++i) mean += h_smoothed[i];
  std::printf("mean of smoothed stream: %.6f\n", mean / total);

  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(d_smoothed));
  CUDA_CHECK(cudaFree(d_batch));
  CUDA_CHECK(cudaFreeHost(h_smoothed));
  CUDA_CHECK(cudaFreeHost(h_samples));
  return 0;
}
