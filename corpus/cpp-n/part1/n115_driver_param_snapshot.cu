// case: Driver-API parameter snapshot: the shadow copy of the device parameters is taken with cuMemcpyHtoD from a device pointer cast to a host pointer (should be cuMemcpyDtoD), and the divergence exit path releases the pinned staging buffer from cuMemAllocHost with cuMemFree (the normal path uses cuMemFreeHost).
// expect: memcpy_kind_mismatch=1, mismatched_free=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                          \
  do {                                                                          \
    CUresult r_ = (call);                                                       \
    if (r_ != CUDA_SUCCESS) {                                                   \
      const char* msg_ = nullptr;                                               \
      cuGetErrorString(r_, &msg_);                                              \
      fprintf(stderr, "%s failed: %s\n", #call, msg_ ? msg_ : "unknown");       \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

__global__ void sgd_update(float* params, const float* shadow, float lr, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) params[i] -= lr * (params[i] - 0.9f * shadow[i]);
}

int main() {
  CU_CHECK(cuInit(0));
  CUdevice dev;
  CU_CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU_CHECK(cuCtxSetCurrent(ctx));

  const int n = 1 << 22;
  const size_t bytes = size_t(n) * sizeof(float);

  CUdeviceptr d_params, d_shadow;
  CU_CHECK(cuMemAlloc(&d_params, bytes));
  CU_CHECK(cuMemAlloc(&d_shadow, bytes));
  float* h_stage = nullptr;
  CU_CHECK(cuMemAllocHost((void**)&h_stage, bytes));

  for (int i = 0; i < n; ++i) h_stage[i] = sinf(0.001f * i);
  CU_CHECK(cuMemcpyHtoD(d_params, h_stage, bytes));
  CU_CHECK(cuMemcpyHtoD(d_shadow, (const void*)d_params, bytes));  // EXPECT: memcpy_kind_mismatch

  sgd_update<<<(n + 255) / 256, 256>>>((float*)d_params, (const float*)d_shadow, 0.01f, n);
  CU_CHECK(cuCtxSynchronize());

  CU_CHECK(cuMemcpyDtoH(h_stage, d_params, bytes));
  double norm = 0.0;
  for (int i = 0; i < n; ++i) norm += double(h_stage[i]) * h_stage[i];
  if (!std::isfinite(norm)) {
    fprintf(stderr, "parameters diverged\n");
    cuMemFree(d_params);
    cuMemFree(d_shadow);
    cuMemFree((CUdeviceptr)h_stage);  // EXPECT: mismatched_free
    return 1;
  }
  printf("||params|| = %.6f\n", sqrt(norm));

  CU_CHECK(cuMemFree(d_params));
  CU_CHECK(cuMemFree(d_shadow));
  CU_CHECK(cuMemFreeHost(h_stage));
  CU_CHECK(cuDevicePrimaryCtxRelease(dev));
  return 0;
}
