// case: an image-statistics module wraps the address of its __device__ histogram array (from cudaGetSymbolAddress) in the same DeviceOwned owner it uses for cudaMalloc memory, so the owner's cudaFree runs on a module global when the stage is destroyed.
// expect: mismatched_free=1
#include "device_owned.cuh"
#include <cstdint>
#include <vector>

constexpr int kBins = 256;
__device__ unsigned int g_bins[kBins];

__global__ void histogram(const uint8_t* px, size_t n, unsigned int* bins) {
  __shared__ unsigned int local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    atomicAdd(&local[px[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

class HistogramStage {
 public:
  explicit HistogramStage(size_t pixels) : pixels_(pixels), d_pixels_(DeviceOwned<uint8_t>::allocate(pixels)) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    unsigned int* bins = nullptr;
    CUDA_CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&bins), g_bins));
    d_bins_ = DeviceOwned<unsigned int>::adopt(bins, kBins);
    CUDA_CHECK(cudaMallocHost(&h_pixels_, pixels_));
    CUDA_CHECK(cudaMallocHost(&h_bins_, kBins * sizeof(unsigned int)));
  }
  ~HistogramStage() {
    cudaStreamSynchronize(stream_);
    cudaFreeHost(h_bins_);
    cudaFreeHost(h_pixels_);
    cudaStreamDestroy(stream_);
  }  // members: d_bins_ then d_pixels_ release through DeviceOwned::reset

  int medianBin(int frame_no) {
    for (size_t i = 0; i < pixels_; ++i) h_pixels_[i] = static_cast<uint8_t>((i * 3 + frame_no) % 200 + 20);
    CUDA_CHECK(cudaMemcpyAsync(d_pixels_.get(), h_pixels_, pixels_, cudaMemcpyHostToDevice, stream_));
    CUDA_CHECK(cudaMemsetAsync(d_bins_.get(), 0, kBins * sizeof(unsigned int), stream_));
    histogram<<<120, 256, 0, stream_>>>(d_pixels_.get(), pixels_, d_bins_.get());
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_bins_, d_bins_.get(), kBins * sizeof(unsigned int), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    size_t seen = 0;
    for (int b = 0; b < kBins; ++b) {
      seen += h_bins_[b];
      if (seen * 2 >= pixels_) return b;
    }
    return kBins - 1;
  }

 private:
  size_t pixels_;
  cudaStream_t stream_ = nullptr;
  DeviceOwned<uint8_t> d_pixels_;
  DeviceOwned<unsigned int> d_bins_;
  uint8_t* h_pixels_ = nullptr;
  unsigned int* h_bins_ = nullptr;
};

int main() {
  std::vector<int> medians;
  {
    HistogramStage stage(1920 * 1080);
    for (int f = 0; f < 10; ++f) medians.push_back(stage.medianBin(f));
  }
  for (size_t f = 0; f < medians.size(); ++f) std::printf("frame %zu median bin %d\n", f, medians[f]);
  return 0;
}
