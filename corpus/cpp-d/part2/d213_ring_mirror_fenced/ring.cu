// case: a mirrored VMM ring whose single kernel writes through one alias and reads through the other with fence.proxy.alias in between, and whose drain kernel on a second stream reads the other alias only after cudaStreamWaitEvent on the writer's event; correct.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include "ring_kernels.cuh"

#define CU_CHECK(call)                                                            \
  do {                                                                            \
    CUresult r_ = (call);                                                         \
    if (r_ != CUDA_SUCCESS) { std::fprintf(stderr, "%s -> %d\n", #call, (int)r_); std::exit(1); } \
  } while (0)

class MirroredRing {
 public:
  explicit MirroredRing(size_t min_bytes, int device = 0) {
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    size_t gran = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    bytes_ = (min_bytes + gran - 1) / gran * gran;
    CU_CHECK(cuMemCreate(&handle_, bytes_, &prop, 0));
    CU_CHECK(cuMemAddressReserve(&base_, 2 * bytes_, 0, 0, 0));
    CU_CHECK(cuMemMap(base_, bytes_, 0, handle_, 0));
    CU_CHECK(cuMemMap(base_ + bytes_, bytes_, 0, handle_, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(base_, 2 * bytes_, &acc, 1));
  }
  ~MirroredRing() {
    cuMemUnmap(base_, bytes_);
    cuMemUnmap(base_ + bytes_, bytes_);
    cuMemRelease(handle_);
    cuMemAddressFree(base_, 2 * bytes_);
  }
  uint32_t* lower() const { return reinterpret_cast<uint32_t*>(base_); }
  uint32_t* upper() const { return reinterpret_cast<uint32_t*>(base_ + bytes_); }
  size_t words() const { return bytes_ / sizeof(uint32_t); }

 private:
  CUmemGenericAllocationHandle handle_ = 0;
  CUdeviceptr base_ = 0;
  size_t bytes_ = 0;
};

int main() {
  CU_CHECK(cuInit(0));
  cudaSetDevice(0);
  cudaFree(nullptr);
  cudaStream_t writer, reader;
  cudaEvent_t stamped;
  cudaStreamCreateWithFlags(&writer, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&reader, cudaStreamNonBlocking);
  cudaEventCreateWithFlags(&stamped, cudaEventDisableTiming);
  unsigned int* d_bad = nullptr;
  unsigned long long* d_energy = nullptr;
  unsigned int* h_bad = nullptr;
  unsigned long long* h_energy = nullptr;
  cudaMalloc(&d_bad, sizeof(unsigned int));
  cudaMalloc(&d_energy, sizeof(unsigned long long));
  cudaMallocHost(&h_bad, sizeof(unsigned int));
  cudaMallocHost(&h_energy, sizeof(unsigned long long));

  {
    MirroredRing ring(2u << 20);
    const size_t words = ring.words();
    for (uint32_t seq = 1; seq <= 4; ++seq) {
      cudaMemsetAsync(d_bad, 0, sizeof(unsigned int), writer);
      stamp_and_verify<<<(unsigned)((words + 255) / 256), 256, 0, writer>>>(ring.lower(), ring.upper(), words, seq, d_bad);
      cudaEventRecord(stamped, writer);
      cudaStreamWaitEvent(reader, stamped, 0);
      cudaMemsetAsync(d_energy, 0, sizeof(unsigned long long), reader);
      const size_t start = words - 1000, len = 4000;
      window_energy<<<(unsigned)((len + 255) / 256), 256, 0, reader>>>(ring.lower() + start, len, d_energy);
      cudaMemcpyAsync(h_energy, d_energy, sizeof(unsigned long long), cudaMemcpyDeviceToHost, reader);
      cudaMemcpyAsync(h_bad, d_bad, sizeof(unsigned int), cudaMemcpyDeviceToHost, writer);
      cudaStreamSynchronize(reader);
      cudaStreamSynchronize(writer);
      std::printf("seq %u: %u alias mismatches, window energy %llu\n", seq, *h_bad, *h_energy);
    }
  }
  cudaFreeHost(h_energy);
  cudaFreeHost(h_bad);
  cudaFree(d_energy);
  cudaFree(d_bad);
  cudaEventDestroy(stamped);
  cudaStreamDestroy(reader);
  cudaStreamDestroy(writer);
  return 0;
}
