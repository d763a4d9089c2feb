// case: a driver-API timing harness checks cuInit, cuModuleLoad, cuLaunchKernel, the event calls and cuCtxSynchronize, and discards the teardown statuses on purpose with (void).
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda.h>

static void check_cu(CUresult r, const char* what, int line) {
  if (r == CUDA_SUCCESS) return;
  const char* desc = nullptr;
  if (cuGetErrorString(r, &desc) != CUDA_SUCCESS) desc = nullptr;
  std::fprintf(stderr, "line %d: %s failed: %s\n", line, what, desc ? desc : "?");
  std::exit(EXIT_FAILURE);
}
#define CHECK_CU(call) check_cu((call), #call, __LINE__)

int main(int argc, char** argv) {
  const char* module_path = argc > 1 ? argv[1] : "vadd.cubin";
  const int n = 1 << 22, reps = 50;
  const size_t bytes = n * sizeof(float);

  CHECK_CU(cuInit(0));
  CUdevice dev;
  CHECK_CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK_CU(cuCtxSetCurrent(ctx));
  CUmodule mod;
  CHECK_CU(cuModuleLoad(&mod, module_path));
  CUfunction vadd;
  CHECK_CU(cuModuleGetFunction(&vadd, mod, "vadd"));

  std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n);
  CUdeviceptr d_a, d_b, d_c;
  CHECK_CU(cuMemAlloc(&d_a, bytes));
  CHECK_CU(cuMemAlloc(&d_b, bytes));
  CHECK_CU(cuMemAlloc(&d_c, bytes));
  CHECK_CU(cuMemcpyHtoD(d_a, a.data(), bytes));
  CHECK_CU(cuMemcpyHtoD(d_b, b.data(), bytes));

  CUevent start, stop;
  CHECK_CU(cuEventCreate(&start, CU_EVENT_DEFAULT));
  CHECK_CU(cuEventCreate(&stop, CU_EVENT_DEFAULT));

  int count = n;
  void* params[] = {&d_a, &d_b, &d_c, &count};
  const unsigned threads = 256, blocks = (n + threads - 1) / threads;
  CHECK_CU(cuEventRecord(start, nullptr));
  for (int r = 0; r < reps; ++r) {
    CHECK_CU(cuLaunchKernel(vadd, blocks, 1, 1, threads, 1, 1, 0, nullptr, params, nullptr));
  }
  CHECK_CU(cuEventRecord(stop, nullptr));
  CHECK_CU(cuEventSynchronize(stop));
  float ms = 0.0f;
  CHECK_CU(cuEventElapsedTime(&ms, start, stop));
  CHECK_CU(cuCtxSynchronize());

  CHECK_CU(cuMemcpyDtoH(c.data(), d_c, bytes));
  std::printf("vadd: %.3f ms/launch, c[7] = %.1f\n", ms / reps, c[7]);

  (void)cuEventDestroy(start);
  (void)cuEventDestroy(stop);
  (void)cuMemFree(d_c);
  (void)cuMemFree(d_b);
  (void)cuMemFree(d_a);
  (void)cuModuleUnload(mod);
  (void)cuDevicePrimaryCtxRelease(dev);
  return 0;
}
