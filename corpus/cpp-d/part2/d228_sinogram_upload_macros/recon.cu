// case: a CT filtered-backprojection service uploads through project macros: the sinogram from PINNED_NEW memory, the per-view detector gains from a std::vector page-locked with cudaHostRegister, and 16 filter taps from a stack array (64 bytes, under the size threshold, kept alive until the sync); correct.
// expect: none
#include "cuda_helpers.h"
#include <vector>

constexpr int kDet = 768, kViews = 720, kTaps = 16;

__global__ void gain_and_filter(const float* sino, const float* gains, const float* taps, int det, int views,
                                float* out) {
  int d = blockIdx.x * blockDim.x + threadIdx.x;
  int v = blockIdx.y;
  if (d >= det || v >= views) return;
  float acc = 0.f;
  for (int k = 0; k < kTaps; ++k) {
    int dd = min(max(d + k - kTaps / 2, 0), det - 1);
    acc += taps[k] * sino[v * det + dd] * gains[v * det + dd];
  }
  out[v * det + d] = acc;
}

class SinogramUploader {
 public:
  SinogramUploader() : gains_(size_t(kDet) * kViews, 1.0f) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    PINNED_NEW(h_sino_, kDet * kViews);
    PINNED_NEW(h_filtered_, kDet * kViews);
    DEVICE_NEW(d_sino_, kDet * kViews);
    DEVICE_NEW(d_gains_, kDet * kViews);
    DEVICE_NEW(d_out_, kDet * kViews);
    DEVICE_NEW(d_taps_, kTaps);
    for (size_t i = 0; i < gains_.size(); ++i) gains_[i] = 0.95f + 0.0001f * (i % kDet);  // per-view calibration
    CUDA_CHECK(cudaHostRegister(gains_.data(), gains_.size() * sizeof(float), cudaHostRegisterDefault));
  }
  ~SinogramUploader() {
    STREAM_SYNC(stream_);
    CUDA_CHECK(cudaHostUnregister(gains_.data()));
    DEVICE_DELETE(d_taps_);
    DEVICE_DELETE(d_out_);
    DEVICE_DELETE(d_gains_);
    DEVICE_DELETE(d_sino_);
    PINNED_DELETE(h_filtered_);
    PINNED_DELETE(h_sino_);
    CUDA_CHECK(cudaStreamDestroy(stream_));
  }

  float reconstructSlice(int slice) {
    float taps[kTaps];
    for (int k = 0; k < kTaps; ++k) taps[k] = (k == kTaps / 2) ? 1.0f : -1.0f / (3.14159f * 3.14159f * (k - kTaps / 2) * (k - kTaps / 2));
    for (int i = 0; i < kDet * kViews; ++i) h_sino_[i] = static_cast<float>((i + slice * 17) % 1000) * 0.001f;

    UPLOAD_ASYNC(d_taps_, taps, kTaps, stream_);
    UPLOAD_ASYNC(d_gains_, gains_.data(), kDet * kViews, stream_);
    UPLOAD_ASYNC(d_sino_, h_sino_, kDet * kViews, stream_);
    dim3 grid((kDet + 127) / 128, kViews);
    gain_and_filter<<<grid, 128, 0, stream_>>>(d_sino_, d_gains_, d_taps_, kDet, kViews, d_out_);
    CUDA_CHECK(cudaGetLastError());
    DOWNLOAD_ASYNC(h_filtered_, d_out_, kDet * kViews, stream_);
    STREAM_SYNC(stream_);  // taps (stack) and h_sino_ may be reused after this

    float peak = 0.f;
    for (int i = 0; i < kDet * kViews; ++i) peak = h_filtered_[i] > peak ? h_filtered_[i] : peak;
    return peak;
  }

 private:
  std::vector<float> gains_;
  cudaStream_t stream_ = nullptr;
  float* h_sino_ = nullptr;
  float* h_filtered_ = nullptr;
  float* d_sino_ = nullptr;
  float* d_gains_ = nullptr;
  float* d_taps_ = nullptr;
  float* d_out_ = nullptr;
};

int main() {
  SinogramUploader up;
  for (int z = 0; z < 8; ++z) std::printf("slice %d peak %.4f\n", z, up.reconstructSlice(z));
  return 0;
}
