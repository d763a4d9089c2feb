// case: an MRI slice reconstructor records its "slice ready" event right after the inverse-FFT kernel but before the device-to-host copy, so cudaEventSynchronize on it does not cover the copy and the host scan of the pinned slice reads it while the copy may still run.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define checkCudaErrors(val)                                                      \
  do {                                                                            \
    cudaError_t e_ = (val);                                                       \
    if (e_ != cudaSuccess) {                                                      \
      std::fprintf(stderr, "CUDA error %d (%s) at %s:%d\n", (int)e_, cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(EXIT_FAILURE);                                                    \
    }                                                                             \
  } while (0)

constexpr int kN = 512;  // slice is kN x kN magnitudes

__global__ void naive_row_idft_magnitude(const float2* kspace, int row_offset, float* image) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y + row_offset;
  if (x >= kN) return;
  float re = 0.f, im = 0.f;
  for (int k = 0; k < kN; ++k) {
    float s, c;
    __sincosf(6.2831853f * k * x / kN, &s, &c);
    float2 v = kspace[y * kN + k];
    re += v.x * c - v.y * s;
    im += v.x * s + v.y * c;
  }
  image[y * kN + x] = sqrtf(re * re + im * im) / kN;
}

class SliceReconstructor {
 public:
  SliceReconstructor() {
    checkCudaErrors(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    checkCudaErrors(cudaEventCreateWithFlags(&slice_ready_, cudaEventDisableTiming));
    checkCudaErrors(cudaMalloc(&d_kspace_, kN * kN * sizeof(float2)));
    checkCudaErrors(cudaMalloc(&d_image_, kN * kN * sizeof(float)));
    checkCudaErrors(cudaMallocHost(&h_kspace_, kN * kN * sizeof(float2)));
    checkCudaErrors(cudaMallocHost(&h_image_, kN * kN * sizeof(float)));
  }
  ~SliceReconstructor() {
    checkCudaErrors(cudaStreamSynchronize(stream_));
    cudaFreeHost(h_image_);
    cudaFreeHost(h_kspace_);
    cudaFree(d_image_);
    cudaFree(d_kspace_);
    cudaEventDestroy(slice_ready_);
    cudaStreamDestroy(stream_);
  }

  float reconstruct(int slice) {
    for (int i = 0; i < kN * kN; ++i) h_kspace_[i] = make_float2(std::cos(0.001f * (i + slice)), 0.f);
    checkCudaErrors(cudaMemcpyAsync(d_kspace_, h_kspace_, kN * kN * sizeof(float2), cudaMemcpyHostToDevice, stream_));
    dim3 grid((kN + 127) / 128, kN);
    naive_row_idft_magnitude<<<grid, 128, 0, stream_>>>(d_kspace_, 0, d_image_);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaEventRecord(slice_ready_, stream_));
    checkCudaErrors(cudaMemcpyAsync(h_image_, d_image_, kN * kN * sizeof(float), cudaMemcpyDeviceToHost, stream_));

    checkCudaErrors(cudaEventSynchronize(slice_ready_));
    float peak = 0.f;
    for (int i = 0; i < kN * kN; ++i) peak = std::fmax(peak, h_image_[i]);  // EXPECT: missing_sync
    checkCudaErrors(cudaStreamSynchronize(stream_));  // before h_kspace_ is refilled
    return peak;
  }

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t slice_ready_ = nullptr;
  float2* d_kspace_ = nullptr;
  float* d_image_ = nullptr;
  float2* h_kspace_ = nullptr;
  float* h_image_ = nullptr;
};

int main() {
  SliceReconstructor recon;
  for (int z = 0; z < 24; ++z) std::printf("slice %2d peak magnitude %.5f\n", z, recon.reconstruct(z));
  return 0;
}
