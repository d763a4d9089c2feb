// case: driver-API dot-product benchmark that uploads its input in two halves at a byte offset, clears the accumulator with cuMemsetD32 counted in 4-byte elements and reads back exactly what was allocated: every count fits
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cuda.h>

#define N (1 << 20)
#define HALF (N / 2)
#define NUM_BLOCKS 512
#define BLOCK_SIZE 256

#define CU_CHECK(call)                                                  \
  do {                                                                  \
    CUresult r_ = (call);                                               \
    if (r_ != CUDA_SUCCESS) {                                           \
      const char *msg = nullptr;                                        \
      cuGetErrorString(r_, &msg);                                       \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, msg);           \
      exit(EXIT_FAILURE);                                               \
    }                                                                   \
  } while (0)

int main() {
  CU_CHECK(cuInit(0));
  CUdevice dev;
  CUcontext ctx;
  CU_CHECK(cuDeviceGet(&dev, 0));
  CU_CHECK(cuCtxCreate(&ctx, 0, dev));

  CUmodule mod;
  CUfunction dot_fn;
  CU_CHECK(cuModuleLoad(&mod, "dot_partial.ptx"));
  CU_CHECK(cuModuleGetFunction(&dot_fn, mod, "dot_partial"));

  float *h_x = (float *)malloc(N * sizeof(float));
  float h_partial[NUM_BLOCKS];
  for (int i = 0; i < N; ++i) h_x[i] = (i % 2) ? 0.5f : 1.5f;

  CUdeviceptr d_x, d_partial;
  CU_CHECK(cuMemAlloc(&d_x, N * sizeof(float)));
  CU_CHECK(cuMemAlloc(&d_partial, NUM_BLOCKS * sizeof(float)));

  CU_CHECK(cuMemcpyHtoD(d_x, h_x, HALF * sizeof(float)));
  CU_CHECK(cuMemcpyHtoD(d_x + HALF * sizeof(float), h_x + HALF, (N - HALF) * sizeof(float)));
  CU_CHECK(cuMemsetD32(d_partial, 0, NUM_BLOCKS));

  int n = N;
  void *args[] = {&d_x, &d_partial, &n};
  CU_CHECK(cuLaunchKernel(dot_fn, NUM_BLOCKS, 1, 1, BLOCK_SIZE, 1, 1,
                          BLOCK_SIZE * sizeof(float), nullptr, args, nullptr));
  CU_CHECK(cuCtxSynchronize());
  CU_CHECK(cuMemcpyDtoH(h_partial, d_partial, sizeof(h_partial)));

  double dot = 0.0;
  for (int b = 0; b < NUM_BLOCKS; ++b) dot += h_partial[b];
  printf("x.x = %.1f\n", dot);

  CU_CHECK(cuMemFree(d_x));
  CU_CHECK(cuMemFree(d_partial));
  CU_CHECK(cuModuleUnload(mod));
  CU_CHECK(cuCtxDestroy(ctx));
  free(h_x);
  return 0;
}
