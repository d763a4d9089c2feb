// case: checkpoint loader stages a weight shard in cuMemAllocHost memory, enqueues cuMemcpyHtoDAsync and cuMemFreeHost's the staging buffer while the copy may still read it
// expect: relies_on_implicit_sync=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

__global__ void dequant_kernel(const signed char* q, float scale, float* w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] = scale * static_cast<float>(q[i]);
}

// reads one int8 shard into device memory in the order of `stream`
static CUresult load_shard(CUdeviceptr d_dst, size_t bytes, int shard, CUstream stream) {
  void* h_stage = nullptr;
  CUresult rc = cuMemAllocHost(&h_stage, bytes);
  if (rc != CUDA_SUCCESS) return rc;
  signed char* q = static_cast<signed char*>(h_stage);
  for (size_t i = 0; i < bytes; ++i) q[i] = static_cast<signed char>(static_cast<int>((i * 13 + shard) % 255) - 127);
  rc = cuMemcpyHtoDAsync(d_dst, h_stage, bytes, stream);
  cuMemFreeHost(h_stage);  // EXPECT: relies_on_implicit_sync
  return rc;
}

int main() {
  const int n = 4 << 20;
  if (cuInit(0) != CUDA_SUCCESS) return 1;
  CUdevice dev;
  CUcontext ctx;
  cuDeviceGet(&dev, 0);
  cuDevicePrimaryCtxRetain(&ctx, dev);
  cuCtxSetCurrent(ctx);
  CUstream stream;
  cuStreamCreate(&stream, CU_STREAM_DEFAULT);

  CUdeviceptr d_q = 0, d_w = 0;
  cuMemAlloc(&d_q, n);
  cuMemAlloc(&d_w, n * sizeof(float));

  if (load_shard(d_q, n, 3, stream) == CUDA_SUCCESS) {
    dequant_kernel<<<(n + 255) / 256, 256, 0, stream>>>(reinterpret_cast<const signed char*>(d_q), 0.02f,
                                                        reinterpret_cast<float*>(d_w), n);
    cuStreamSynchronize(stream);
    std::vector<float> h_w(16);
    cuMemcpyDtoH(h_w.data(), d_w, h_w.size() * sizeof(float));
    std::printf("w[0..2] = %f %f %f\n", h_w[0], h_w[1], h_w[2]);
  }

  cuStreamSynchronize(stream);
  cuMemFree(d_q);
  cuMemFree(d_w);
  cuStreamDestroy(stream);
  cuDevicePrimaryCtxRelease(dev);
  return 0;
}
