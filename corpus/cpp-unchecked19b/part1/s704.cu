// case: a driver-API loader runs a PTX kernel with every call wrapped in CU_CHECK except cuCtxSynchronize after the launch and cuModuleUnload at teardown.
// expect: unchecked_cuda_result=2
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda.h>

#define CU_CHECK(call)                                                   \
  do {                                                                   \
    CUresult res_ = (call);                                              \
    if (res_ != CUDA_SUCCESS) {                                          \
      const char* msg_ = nullptr;                                        \
      if (cuGetErrorString(res_, &msg_) != CUDA_SUCCESS) msg_ = nullptr; \
      std::fprintf(stderr, "%s failed at %s:%d: %s\n", #call, __FILE__,  \
                   __LINE__, msg_ ? msg_ : "unknown error");             \
      std::exit(EXIT_FAILURE);                                           \
    }                                                                    \
  } while (0)

int main(int argc, char** argv) {
  const char* ptx_path = argc > 1 ? argv[1] : "scale.ptx";
  const int n = 1 << 16;
  const size_t bytes = n * sizeof(float);

  CU_CHECK(cuInit(0));
  CUdevice dev;
  CU_CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU_CHECK(cuCtxSetCurrent(ctx));

  CUmodule mod;
  CU_CHECK(cuModuleLoad(&mod, ptx_path));
  CUfunction scale;
  CU_CHECK(cuModuleGetFunction(&scale, mod, "scale"));

  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i);

  CUdeviceptr d_buf;
  CU_CHECK(cuMemAlloc(&d_buf, bytes));
  CU_CHECK(cuMemcpyHtoD(d_buf, host.data(), bytes));

  float factor = 0.5f;
  int count = n;
  void* args[] = {&d_buf, &factor, &count};
  const unsigned threads = 256;
  const unsigned blocks = (n + threads - 1) / threads;
  CU_CHECK(cuLaunchKernel(scale, blocks, 1, 1, threads, 1, 1, 0, nullptr, args, nullptr));
  cuCtxSynchronize();  // EXPECT: unchecked_cuda_result

  CU_CHECK(cuMemcpyDtoH(host.data(), d_buf, bytes));
  std::printf("host[10] = %f (expected %f)\n", host[10], 10.0f * factor);

  CU_CHECK(cuMemFree(d_buf));
  cuModuleUnload(mod);  // EXPECT: unchecked_cuda_result
  CU_CHECK(cuDevicePrimaryCtxRelease(dev));
  return 0;
}
