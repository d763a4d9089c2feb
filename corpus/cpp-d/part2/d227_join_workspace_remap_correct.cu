// case: a GPU join operator's scratch workspace grows by synchronizing, unmapping and releasing its physical allocation, then mapping a larger one at the same reserved address and calling cuMemSetAccess again (a new mapping starts without access) before the memset and the kernel use it; teardown unmaps before cuMemAddressFree; correct.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                          \
  do {                                                                          \
    CUresult r_ = (call);                                                       \
    if (r_ != CUDA_SUCCESS) { std::fprintf(stderr, "%s -> %d\n", #call, (int)r_); std::exit(1); } \
  } while (0)

__global__ void partition_keys(const int* keys, int n, int parts, unsigned int* scratch_counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&scratch_counts[(keys[i] * 2654435761u) % parts], 1u);
}

class Workspace {
 public:
  Workspace(int device, size_t max_bytes, CUstream stream) : stream_(stream) {
    prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop_.location.id = device;
    access_.location = prop_.location;
    access_.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemGetAllocationGranularity(&gran_, &prop_, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    reserved_ = roundUp(max_bytes);
    CU_CHECK(cuMemAddressReserve(&base_, reserved_, 0, 0, 0));
    mapFresh(gran_);
  }
  ~Workspace() {
    CU_CHECK(cuStreamSynchronize(stream_));
    CU_CHECK(cuMemUnmap(base_, size_));
    CU_CHECK(cuMemRelease(handle_));
    CU_CHECK(cuMemAddressFree(base_, reserved_));
  }

  // Contents are scratch: growing does not preserve them.
  void ensure(size_t bytes) {
    if (bytes <= size_) return;
    CU_CHECK(cuStreamSynchronize(stream_));  // nothing may still use the old mapping
    CU_CHECK(cuMemUnmap(base_, size_));
    CU_CHECK(cuMemRelease(handle_));
    mapFresh(roundUp(bytes));
  }
  CUdeviceptr ptr() const { return base_; }
  size_t size() const { return size_; }

 private:
  size_t roundUp(size_t b) const { return (b + gran_ - 1) / gran_ * gran_; }
  void mapFresh(size_t bytes) {
    if (bytes > reserved_) { std::fprintf(stderr, "workspace limit\n"); std::exit(1); }
    CU_CHECK(cuMemCreate(&handle_, bytes, &prop_, 0));
    CU_CHECK(cuMemMap(base_, bytes, 0, handle_, 0));
    CU_CHECK(cuMemSetAccess(base_, bytes, &access_, 1));
    size_ = bytes;
  }

  CUstream stream_;
  CUmemAllocationProp prop_ = {};
  CUmemAccessDesc access_ = {};
  CUmemGenericAllocationHandle handle_ = 0;
  CUdeviceptr base_ = 0;
  size_t gran_ = 0, reserved_ = 0, size_ = 0;
};

int main() {
  CU_CHECK(cuInit(0));
  cudaSetDevice(0);
  cudaFree(nullptr);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  const int n = 1 << 22;
  int *d_keys = nullptr, *h_keys = nullptr;
  unsigned int* h_counts = nullptr;
  cudaMalloc(&d_keys, n * sizeof(int));
  cudaMallocHost(&h_keys, n * sizeof(int));
  cudaMallocHost(&h_counts, sizeof(unsigned int) * (1 << 20));
  for (int i = 0; i < n; ++i) h_keys[i] = i ^ 0x5bd1e995;
  cudaMemcpyAsync(d_keys, h_keys, n * sizeof(int), cudaMemcpyHostToDevice, s);

  {
    Workspace ws(0, 256u << 20, s);
    for (int parts = 1 << 12; parts <= (1 << 20); parts <<= 4) {
      size_t bytes = size_t(parts) * sizeof(unsigned int);
      ws.ensure(bytes);
      CU_CHECK(cuMemsetD32Async(ws.ptr(), 0, parts, s));
      partition_keys<<<(n + 255) / 256, 256, 0, s>>>(d_keys, n, parts, reinterpret_cast<unsigned int*>(ws.ptr()));
      cudaMemcpyAsync(h_counts, reinterpret_cast<void*>(ws.ptr()), bytes, cudaMemcpyDeviceToHost, s);
      cudaStreamSynchronize(s);
      std::printf("%d partitions: first holds %u keys (workspace %zu bytes)\n", parts, h_counts[0], ws.size());
    }
  }  // ~Workspace: sync, unmap, release, free the range
  cudaStreamSynchronize(s);
  cudaFreeHost(h_counts);
  cudaFreeHost(h_keys);
  cudaFree(d_keys);
  cudaStreamDestroy(s);
  return 0;
}
