// case: a telemetry exporter's mirrored ring (one physical allocation mapped at base and base+size) is written by the ingest kernel through the lower view on one stream and drained through the upper (mirror) view by a kernel on another stream, with no event ordering between them.
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                         \
  do {                                                                         \
    CUresult r_ = (call);                                                      \
    if (r_ != CUDA_SUCCESS) {                                                  \
      std::fprintf(stderr, "%s:%d driver error %d\n", __FILE__, __LINE__, (int)r_); \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

__global__ void ingest_samples(uint32_t* lower, size_t words, uint32_t tick) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < words) lower[i] = (tick << 20) ^ static_cast<uint32_t>(i * 2654435761u);
}

// reads the ring through whichever view it is given; through the upper view a window never wraps
__global__ void drain_summary(const uint32_t* window, size_t words, unsigned long long* summary) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < words) atomicAdd(summary, static_cast<unsigned long long>(window[i] & 0xffff));
}

class MirroredRing {
 public:
  MirroredRing(int device, size_t min_bytes) {
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    size_t gran = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    size_ = (min_bytes + gran - 1) / gran * gran;
    CU_CHECK(cuMemCreate(&handle_, size_, &prop, 0));
    CU_CHECK(cuMemAddressReserve(&base_, 2 * size_, 0, 0, 0));
    CU_CHECK(cuMemMap(base_, size_, 0, handle_, 0));
    CU_CHECK(cuMemMap(base_ + size_, size_, 0, handle_, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(base_, 2 * size_, &acc, 1));
  }
  ~MirroredRing() {
    cuMemUnmap(base_ + size_, size_);
    cuMemUnmap(base_, size_);
    cuMemRelease(handle_);
    cuMemAddressFree(base_, 2 * size_);
  }
  uint32_t* lower() const { return reinterpret_cast<uint32_t*>(base_); }
  uint32_t* upper() const { return reinterpret_cast<uint32_t*>(base_ + size_); }
  size_t words() const { return size_ / sizeof(uint32_t); }

 private:
  CUmemGenericAllocationHandle handle_ = 0;
  CUdeviceptr base_ = 0;
  size_t size_ = 0;
};

int main() {
  CU_CHECK(cuInit(0));
  cudaSetDevice(0);
  cudaFree(nullptr);
  cudaStream_t ingest, exporter;
  cudaStreamCreateWithFlags(&ingest, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&exporter, cudaStreamNonBlocking);
  unsigned long long *d_summary = nullptr, *h_summary = nullptr;
  cudaMalloc(&d_summary, sizeof(unsigned long long));
  cudaMallocHost(&h_summary, sizeof(unsigned long long));

  {
    MirroredRing ring(0, 4u << 20);
    const size_t words = ring.words();
    const unsigned blocks = static_cast<unsigned>((words + 255) / 256);
    for (uint32_t tick = 0; tick < 8; ++tick) {
      cudaMemsetAsync(d_summary, 0, sizeof(unsigned long long), exporter);
      ingest_samples<<<blocks, 256, 0, ingest>>>(ring.lower(), words, tick);
      // the exporter reads whole windows through the mirror
      drain_summary<<<blocks, 256, 0, exporter>>>(ring.upper(), words, d_summary);  // EXPECT: unfenced_vmm_alias
      cudaMemcpyAsync(h_summary, d_summary, sizeof(unsigned long long), cudaMemcpyDeviceToHost, exporter);
      cudaStreamSynchronize(exporter);
      cudaStreamSynchronize(ingest);
      std::printf("tick %u: summary %llu\n", tick, *h_summary);
    }
  }
  cudaFreeHost(h_summary);
  cudaFree(d_summary);
  cudaStreamDestroy(exporter);
  cudaStreamDestroy(ingest);
  return 0;
}
