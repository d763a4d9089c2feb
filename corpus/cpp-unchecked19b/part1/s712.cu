// case: a driver-API layer runner checks module loading, copies and synchronization with CU_CHECK, but drops the CUresult of cuLaunchKernel inside its per-layer loop.
// expect: unchecked_cuda_result=1
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda.h>

#define CU_CHECK(x)                                                       \
  do {                                                                    \
    CUresult r_ = (x);                                                    \
    if (r_ != CUDA_SUCCESS) {                                             \
      const char* name_ = nullptr;                                        \
      (void)cuGetErrorName(r_, &name_);                                   \
      std::fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #x,    \
                   name_ ? name_ : "?");                                  \
      std::exit(EXIT_FAILURE);                                            \
    }                                                                     \
  } while (0)

extern const unsigned char layers_fatbin[];  // embedded by the build (bin2c)

int main() {
  const int width = 4096;
  const int num_layers = 6;
  const size_t bytes = width * sizeof(float);

  CU_CHECK(cuInit(0));
  CUdevice dev;
  CU_CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU_CHECK(cuCtxSetCurrent(ctx));

  CUmodule mod;
  CU_CHECK(cuModuleLoadData(&mod, layers_fatbin));
  CUfunction add_bias_relu;
  CU_CHECK(cuModuleGetFunction(&add_bias_relu, mod, "add_bias_relu"));

  CUstream stream;
  CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

  float* h_act = nullptr;
  CU_CHECK(cuMemAllocHost(reinterpret_cast<void**>(&h_act), bytes));
  for (int i = 0; i < width; ++i) h_act[i] = (i % 2 == 0) ? 1.0f : -1.0f;

  CUdeviceptr d_act, d_bias;
  CU_CHECK(cuMemAlloc(&d_act, bytes));
  CU_CHECK(cuMemAlloc(&d_bias, num_layers * bytes));
  CU_CHECK(cuMemsetD32Async(d_bias, 0x3dcccccd /* 0.1f */, width * num_layers, stream));
  CU_CHECK(cuMemcpyHtoDAsync(d_act, h_act, bytes, stream));

  const unsigned block = 256;
  const unsigned grid = (width + block - 1) / block;
  int n = width;
  for (int layer = 0; layer < num_layers; ++layer) {
    CUdeviceptr bias = d_bias + static_cast<CUdeviceptr>(layer) * bytes;
    void* params[] = {&d_act, &bias, &n};
    cuLaunchKernel(add_bias_relu, grid, 1, 1, block, 1, 1, 0, stream, params, nullptr);  // EXPECT: unchecked_cuda_result
  }

  CU_CHECK(cuMemcpyDtoHAsync(h_act, d_act, bytes, stream));
  CU_CHECK(cuStreamSynchronize(stream));
  std::printf("act[0]=%f act[1]=%f\n", h_act[0], h_act[1]);

  CU_CHECK(cuMemFree(d_bias));
  CU_CHECK(cuMemFree(d_act));
  CU_CHECK(cuMemFreeHost(h_act));
  CU_CHECK(cuStreamDestroy(stream));
  CU_CHECK(cuModuleUnload(mod));
  CU_CHECK(cuDevicePrimaryCtxRelease(dev));
  return 0;
}
