// case: Streaming FIR filter on a mirrored ring buffer (one physical allocation mapped at base and at base + size, access granted on both); the kernel writes new samples through the first view and reads the window through the mirror view, with fence.proxy.alias between the store and the loads, and the ring is torn down in the documented order after synchronizing.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
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
#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

constexpr int kTaps = 32;
constexpr int kBlock = 256;  // new samples per step (one block)

__constant__ float c_taps[kTaps];

__global__ void fir_step(float* ring, const float* mirror, const float* in, float* out, int head, int cap) {
  int i = threadIdx.x;
  ring[(head + i) % cap] = in[i];
  asm volatile("fence.proxy.alias;" ::: "memory");
  __syncthreads();
  float acc = 0.f;
  for (int k = 0; k < kTaps; ++k) acc += c_taps[k] * mirror[(head + i - k + cap) % cap];
  out[i] = acc;
}

int main() {
  CU_CHECK(cuInit(0));
  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaFree(0));
  CUdevice dev;
  CU_CHECK(cuDeviceGet(&dev, 0));

  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  size_t size = 0;
  CU_CHECK(cuMemGetAllocationGranularity(&size, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  const int cap = int(size / sizeof(float));

  CUmemGenericAllocationHandle h;
  CU_CHECK(cuMemCreate(&h, size, &prop, 0));
  CUdeviceptr base;
  CU_CHECK(cuMemAddressReserve(&base, 2 * size, 0, 0, 0));
  CU_CHECK(cuMemMap(base, size, 0, h, 0));
  CU_CHECK(cuMemMap(base + size, size, 0, h, 0));
  CUmemAccessDesc access = {};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU_CHECK(cuMemSetAccess(base, size, &access, 1));
  CU_CHECK(cuMemSetAccess(base + size, size, &access, 1));

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  CU_CHECK(cuMemsetD32Async(base, 0, size / 4, stream));

  float h_taps[kTaps];
  for (int k = 0; k < kTaps; ++k) h_taps[k] = 1.0f / kTaps;
  CUDA_CHECK(cudaMemcpyToSymbol(c_taps, h_taps, sizeof(h_taps)));

  float *h_in, *h_out, *d_in, *d_out;
  CUDA_CHECK(cudaMallocHost(&h_in, kBlock * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_out, kBlock * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_in, kBlock * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, kBlock * sizeof(float)));

  int head = 0;
  double energy = 0.0;
  for (int step = 0; step < 100; ++step) {
    for (int i = 0; i < kBlock; ++i) h_in[i] = float((step * kBlock + i) % 64) - 32.0f;
    CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, kBlock * sizeof(float), cudaMemcpyHostToDevice, stream));
    fir_step<<<1, kBlock, 0, stream>>>((float*)base, (const float*)(base + size), d_in, d_out, head, cap);
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, kBlock * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int i = 0; i < kBlock; ++i) energy += double(h_out[i]) * h_out[i];
    head = (head + kBlock) % cap;
  }
  printf("output energy %.3f\n", energy);

  CUDA_CHECK(cudaStreamDestroy(stream));
  CU_CHECK(cuMemUnmap(base, size));
  CU_CHECK(cuMemUnmap(base + size, size));
  CU_CHECK(cuMemRelease(h));
  CU_CHECK(cuMemAddressFree(base, 2 * size));
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaFreeHost(h_in));
  CUDA_CHECK(cudaFreeHost(h_out));
  return 0;
}
