// case: a software-radio IQ ring maps one allocation at base and base+size; the upload stream copies samples in through the lower view while the demodulator kernel on the compute stream reads them through the upper (mirror) view with no event between them, and the destructor frees the reservation while the upper mapping is still mapped.
// expect: unfenced_vmm_alias=1, vmm_lifecycle=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                          \
  do {                                                                          \
    CUresult r_ = (call);                                                       \
    if (r_ != CUDA_SUCCESS) { std::fprintf(stderr, "%s -> %d\n", #call, (int)r_); std::exit(1); } \
  } while (0)

__global__ void fm_demod(const float2* iq, size_t n, float* audio) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i == 0 || i >= n) return;
  float2 a = iq[i - 1], b = iq[i];
  audio[i] = atan2f(a.x * b.y - a.y * b.x, a.x * b.x + a.y * b.y);
}

class IqRing {
 public:
  IqRing(int device, size_t min_bytes) {
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    size_t gran = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    size_ = (min_bytes + gran - 1) / gran * gran;
    CU_CHECK(cuMemAddressReserve(&base_, 2 * size_, 0, 0, 0));
    CU_CHECK(cuMemCreate(&handle_, size_, &prop, 0));
    CU_CHECK(cuMemMap(base_, size_, 0, handle_, 0));
    CU_CHECK(cuMemMap(base_ + size_, size_, 0, handle_, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(base_, 2 * size_, &acc, 1));
  }
  ~IqRing() {
    cuMemUnmap(base_, size_);
    cuMemRelease(handle_);
    cuMemAddressFree(base_, 2 * size_);  // EXPECT: vmm_lifecycle
  }
  float2* lower() const { return reinterpret_cast<float2*>(base_); }
  float2* upper() const { return reinterpret_cast<float2*>(base_ + size_); }
  size_t samples() const { return size_ / sizeof(float2); }

 private:
  CUmemGenericAllocationHandle handle_ = 0;
  CUdeviceptr base_ = 0;
  size_t size_ = 0;
};

int main() {
  CU_CHECK(cuInit(0));
  cudaSetDevice(0);
  cudaFree(nullptr);
  cudaStream_t upload, compute;
  cudaStreamCreateWithFlags(&upload, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking);

  IqRing* ring = new IqRing(0, 8u << 20);
  const size_t n = ring->samples();
  float2* h_iq = nullptr;
  float *d_audio = nullptr, *h_audio = nullptr;
  cudaMallocHost(&h_iq, n * sizeof(float2));
  cudaMallocHost(&h_audio, n * sizeof(float));
  cudaMalloc(&d_audio, n * sizeof(float));

  for (int block = 0; block < 6; ++block) {
    for (size_t i = 0; i < n; ++i) h_iq[i] = make_float2(std::cos(0.01f * (i + block)), std::sin(0.01f * (i + block)));
    cudaMemcpyAsync(ring->lower(), h_iq, n * sizeof(float2), cudaMemcpyHostToDevice, upload);
    // the demodulator reads through the mirror so its sliding window never wraps
    fm_demod<<<(unsigned)((n + 255) / 256), 256, 0, compute>>>(ring->upper(), n, d_audio);  // EXPECT: unfenced_vmm_alias
    cudaMemcpyAsync(h_audio, d_audio, n * sizeof(float), cudaMemcpyDeviceToHost, compute);
    cudaStreamSynchronize(compute);
    cudaStreamSynchronize(upload);
    std::printf("block %d: audio[1]=%.5f\n", block, h_audio[1]);
  }

  delete ring;
  cudaFree(d_audio);
  cudaFreeHost(h_audio);
  cudaFreeHost(h_iq);
  cudaStreamDestroy(compute);
  cudaStreamDestroy(upload);
  return 0;
}
