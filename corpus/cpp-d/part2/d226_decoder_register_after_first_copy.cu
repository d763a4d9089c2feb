// case: a video decoder's driver-API upload path sends the first (key) frame with cuMemcpyHtoDAsync from its std::vector before page-locking that vector with cuMemHostRegister; the later frames go out from the registered vector (fine), the key frame's copy is from pageable memory.
// expect: pageable_async_copy=1
#include <cuda.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CU_CHECK(call)                                                          \
  do {                                                                          \
    CUresult r_ = (call);                                                       \
    if (r_ != CUDA_SUCCESS) {                                                   \
      const char* n_ = nullptr;                                                 \
      cuGetErrorName(r_, &n_);                                                  \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, n_ ? n_ : "?");    \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

constexpr int kWidth = 1920, kHeight = 1080;
constexpr size_t kFrameBytes = size_t(kWidth) * kHeight * 3 / 2;  // NV12

static void decode_into(std::vector<uint8_t>& frame, int index) {
  for (size_t i = 0; i < frame.size(); ++i) frame[i] = static_cast<uint8_t>((i >> 4) + index * 9);
}

class FrameUploader {
 public:
  FrameUploader() {
    CU_CHECK(cuInit(0));
    CU_CHECK(cuDeviceGet(&dev_, 0));
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx_, dev_));
    CU_CHECK(cuCtxSetCurrent(ctx_));
    CU_CHECK(cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING));
    CU_CHECK(cuMemAlloc(&d_frame_, kFrameBytes));
    frame_.resize(kFrameBytes);
  }
  ~FrameUploader() {
    cuStreamSynchronize(stream_);
    if (registered_) cuMemHostUnregister(frame_.data());
    cuMemFree(d_frame_);
    cuStreamDestroy(stream_);
    cuDevicePrimaryCtxRelease(dev_);
  }

  void run(int frames) {
    // key frame: get it to the GPU as early as possible
    decode_into(frame_, 0);
    CU_CHECK(cuMemcpyHtoDAsync(d_frame_, frame_.data(), kFrameBytes, stream_));  // EXPECT: pageable_async_copy
    CU_CHECK(cuStreamSynchronize(stream_));

    // from now on the same storage is reused: page-lock it once
    CU_CHECK(cuMemHostRegister(frame_.data(), kFrameBytes, CU_MEMHOSTREGISTER_PORTABLE));
    registered_ = true;
    for (int f = 1; f < frames; ++f) {
      decode_into(frame_, f);  // the previous upload finished: synchronized below
      CU_CHECK(cuMemcpyHtoDAsync(d_frame_, frame_.data(), kFrameBytes, stream_));
      CU_CHECK(cuMemsetD8Async(d_frame_ + size_t(kWidth) * kHeight, 128, size_t(kWidth) * kHeight / 2, stream_));
      CU_CHECK(cuStreamSynchronize(stream_));
    }
  }

 private:
  CUdevice dev_ = 0;
  CUcontext ctx_ = nullptr;
  CUstream stream_ = nullptr;
  CUdeviceptr d_frame_ = 0;
  std::vector<uint8_t> frame_;
  bool registered_ = false;
};

int main() {
  FrameUploader up;
  up.run(48);
  std::printf("uploaded 48 frames of %zu bytes\n", kFrameBytes);
  return 0;
}
