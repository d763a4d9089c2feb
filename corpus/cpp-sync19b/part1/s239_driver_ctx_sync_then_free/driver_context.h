// RAII holder of the device's primary context for code written against the driver API.
#pragma once
#include <cuda.h>
#include <cstdio>

class PrimaryContext {
 public:
  explicit PrimaryContext(int ordinal) {
    ok_ = cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&dev_, ordinal) == CUDA_SUCCESS &&
          cuDevicePrimaryCtxRetain(&ctx_, dev_) == CUDA_SUCCESS && cuCtxSetCurrent(ctx_) == CUDA_SUCCESS;
    if (!ok_) std::fprintf(stderr, "no CUDA context\n");
  }
  ~PrimaryContext() {
    if (ctx_ != nullptr) cuDevicePrimaryCtxRelease(dev_);
  }
  PrimaryContext(const PrimaryContext&) = delete;
  PrimaryContext& operator=(const PrimaryContext&) = delete;

  bool ok() const { return ok_; }

 private:
  CUdevice dev_ = 0;
  CUcontext ctx_ = nullptr;
  bool ok_ = false;
};
