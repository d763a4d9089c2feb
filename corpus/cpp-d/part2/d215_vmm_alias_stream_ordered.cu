// case: two VMM aliases of one allocation (a medical-imaging volume staged through alias B and rescaled in place through alias A) are only used across operation boundaries: copy then kernel on one stream, writer and reader on two streams joined by cudaEventRecord/cudaStreamWaitEvent, and a compare kernel that only reads both aliases; correct.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                           \
  do {                                                                           \
    CUresult r_ = (call);                                                        \
    if (r_ != CUDA_SUCCESS) { std::fprintf(stderr, "%s -> %d\n", #call, (int)r_); std::exit(1); } \
  } while (0)

__global__ void rescale_in_place(float* a, size_t n, float slope, float intercept) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] * slope + intercept;  // raw detector units to Hounsfield units
}

__global__ void window_level(const float* b, size_t n, float lo, float hi, unsigned char* out) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<unsigned char>(255.f * fminf(fmaxf((b[i] - lo) / (hi - lo), 0.f), 1.f));
}

// reads both aliases, writes neither
__global__ void alias_consistency(const float* a, const float* b, size_t n, unsigned int* diffs) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n && a[i] != b[i]) atomicAdd(diffs, 1u);
}

int main() {
  CU_CHECK(cuInit(0));
  cudaSetDevice(0);
  cudaFree(nullptr);
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  size_t gran = 0;
  CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  const size_t n = 8u << 20;  // 32 MiB of voxels
  const size_t bytes = (n * sizeof(float) + gran - 1) / gran * gran;

  CUmemGenericAllocationHandle vol;
  CUdeviceptr va_a = 0, va_b = 0;
  CU_CHECK(cuMemCreate(&vol, bytes, &prop, 0));
  CU_CHECK(cuMemAddressReserve(&va_a, bytes, 0, 0, 0));
  CU_CHECK(cuMemAddressReserve(&va_b, bytes, 0, 0, 0));
  CU_CHECK(cuMemMap(va_a, bytes, 0, vol, 0));
  CU_CHECK(cuMemMap(va_b, bytes, 0, vol, 0));
  CUmemAccessDesc acc = {};
  acc.location = prop.location;
  acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU_CHECK(cuMemSetAccess(va_a, bytes, &acc, 1));
  CU_CHECK(cuMemSetAccess(va_b, bytes, &acc, 1));
  float* A = reinterpret_cast<float*>(va_a);
  float* B = reinterpret_cast<float*>(va_b);

  cudaStream_t filt, disp;
  cudaEvent_t filtered;
  cudaStreamCreateWithFlags(&filt, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&disp, cudaStreamNonBlocking);
  cudaEventCreateWithFlags(&filtered, cudaEventDisableTiming);
  float* h_vol = nullptr;
  unsigned char *d_img = nullptr, *h_img = nullptr;
  unsigned int *d_diffs = nullptr, *h_diffs = nullptr;
  cudaMallocHost(&h_vol, n * sizeof(float));
  cudaMallocHost(&h_img, n);
  cudaMallocHost(&h_diffs, sizeof(unsigned int));
  cudaMalloc(&d_img, n);
  cudaMalloc(&d_diffs, sizeof(unsigned int));
  for (size_t i = 0; i < n; ++i) h_vol[i] = static_cast<float>((i * 13) % 4096);

  const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  // stream order: the copy through B completes before the rescale reads A
  cudaMemcpyAsync(B, h_vol, n * sizeof(float), cudaMemcpyHostToDevice, filt);
  rescale_in_place<<<blocks, 256, 0, filt>>>(A, n, 1.0f, -1024.f);
  cudaEventRecord(filtered, filt);
  // the display stream waits for the rescale before reading through B
  cudaStreamWaitEvent(disp, filtered, 0);
  window_level<<<blocks, 256, 0, disp>>>(B, n, -160.f, 240.f, d_img);
  cudaMemcpyAsync(h_img, d_img, n, cudaMemcpyDeviceToHost, disp);
  // after the display work: nothing writes the volume any more
  cudaMemsetAsync(d_diffs, 0, sizeof(unsigned int), disp);
  alias_consistency<<<blocks, 256, 0, disp>>>(A, B, n, d_diffs);
  cudaMemcpyAsync(h_diffs, d_diffs, sizeof(unsigned int), cudaMemcpyDeviceToHost, disp);
  cudaStreamSynchronize(disp);
  cudaStreamSynchronize(filt);
  std::printf("center pixel %u, alias diffs %u\n", h_img[n / 2], *h_diffs);

  CU_CHECK(cuMemUnmap(va_b, bytes));
  CU_CHECK(cuMemUnmap(va_a, bytes));
  CU_CHECK(cuMemRelease(vol));
  CU_CHECK(cuMemAddressFree(va_b, bytes));
  CU_CHECK(cuMemAddressFree(va_a, bytes));
  cudaFree(d_diffs);
  cudaFree(d_img);
  cudaFreeHost(h_diffs);
  cudaFreeHost(h_img);
  cudaFreeHost(h_vol);
  cudaEventDestroy(filtered);
  cudaStreamDestroy(disp);
  cudaStreamDestroy(filt);
  return 0;
}
