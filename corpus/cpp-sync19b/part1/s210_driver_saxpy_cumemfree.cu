// case: plugin allocates through the driver API (cuMemAlloc) and launches a runtime kernel on a driver stream, then cuMemFree's the kernel's input with nothing waiting for the stream
// expect: relies_on_implicit_sync=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

__global__ void saxpy_kernel(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 1 << 20;
  const size_t bytes = n * sizeof(float);

  if (cuInit(0) != CUDA_SUCCESS) return 1;
  CUdevice dev;
  CUcontext ctx;
  cuDeviceGet(&dev, 0);
  cuDevicePrimaryCtxRetain(&ctx, dev);
  cuCtxSetCurrent(ctx);

  CUstream stream;
  cuStreamCreate(&stream, CU_STREAM_DEFAULT);

  std::vector<float> h_x(n, 1.5f), h_y(n, 2.0f);
  CUdeviceptr d_x = 0, d_y = 0;
  cuMemAlloc(&d_x, bytes);
  cuMemAlloc(&d_y, bytes);
  cuMemcpyHtoD(d_x, h_x.data(), bytes);
  cuMemcpyHtoD(d_y, h_y.data(), bytes);

  saxpy_kernel<<<(n + 255) / 256, 256, 0, stream>>>(3.0f, reinterpret_cast<const float*>(d_x),
                                                     reinterpret_cast<float*>(d_y), n);
  cuMemFree(d_x);  // EXPECT: relies_on_implicit_sync

  cuMemcpyDtoH(h_y.data(), d_y, bytes);  // legacy-stream copy: waits for the blocking stream
  std::printf("y[0]=%f\n", h_y[0]);

  cuMemFree(d_y);
  cuStreamDestroy(stream);
  cuDevicePrimaryCtxRelease(dev);
  return 0;
}
