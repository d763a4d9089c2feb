// case: driver-API tone-mapping program that uploads a gamma lookup table into a CUdeviceptr initialized to 0 whose cuMemAlloc was never written; the launch of the PTX kernel is unknown, the upload is not
// expect: unallocated_pointer=1
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda.h>

#define LUT_SIZE 4096
#define NUM_PIXELS (3840 * 2160)
#define BLOCK 256

static void check(CUresult r, const char *what) {
  if (r != CUDA_SUCCESS) {
    const char *name = nullptr;
    cuGetErrorName(r, &name);
    fprintf(stderr, "%s failed: %s\n", what, name ? name : "?");
    exit(EXIT_FAILURE);
  }
}

int main() {
  check(cuInit(0), "cuInit");
  CUdevice dev;
  CUcontext ctx;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  check(cuCtxCreate(&ctx, 0, dev), "cuCtxCreate");

  CUmodule module;
  CUfunction tonemap;
  check(cuModuleLoad(&module, "tonemap.ptx"), "cuModuleLoad");
  check(cuModuleGetFunction(&tonemap, module, "apply_lut"), "cuModuleGetFunction");

  unsigned short *h_pixels = (unsigned short *)malloc(NUM_PIXELS * sizeof(unsigned short));
  unsigned char *h_out = (unsigned char *)malloc(NUM_PIXELS);
  unsigned char h_lut[LUT_SIZE];
  for (int i = 0; i < NUM_PIXELS; ++i) h_pixels[i] = (unsigned short)(i % LUT_SIZE);
  for (int i = 0; i < LUT_SIZE; ++i)
    h_lut[i] = (unsigned char)(255.0 * pow(i / (double)(LUT_SIZE - 1), 1.0 / 2.2));

  CUdeviceptr d_pixels = 0, d_lut = 0, d_out = 0;
  check(cuMemAlloc(&d_pixels, NUM_PIXELS * sizeof(unsigned short)), "cuMemAlloc pixels");
  check(cuMemAlloc(&d_out, NUM_PIXELS), "cuMemAlloc out");

  check(cuMemcpyHtoD(d_pixels, h_pixels, NUM_PIXELS * sizeof(unsigned short)), "upload pixels");
  check(cuMemcpyHtoD(d_lut, h_lut, sizeof(h_lut)), "upload lut"); // EXPECT: unallocated_pointer

  int n = NUM_PIXELS;
  void *args[] = {&d_pixels, &d_lut, &d_out, &n};
  check(cuLaunchKernel(tonemap, (NUM_PIXELS + BLOCK - 1) / BLOCK, 1, 1, BLOCK, 1, 1, 0, 0, args, 0),
        "launch");
  check(cuCtxSynchronize(), "sync");
  check(cuMemcpyDtoH(h_out, d_out, NUM_PIXELS), "download");

  unsigned long long total = 0;
  for (int i = 0; i < NUM_PIXELS; ++i) total += h_out[i];
  printf("mean output level %.2f\n", (double)total / NUM_PIXELS);

  check(cuMemFree(d_pixels), "free pixels");
  check(cuMemFree(d_out), "free out");
  check(cuModuleUnload(module), "unload");
  check(cuCtxDestroy(ctx), "ctx destroy");
  free(h_pixels);
  free(h_out);
  return 0;
}
