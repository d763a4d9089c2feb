// case: A growable VMM buffer zeroes its first chunk on the stream before its constructor grants access to the mapping, and shrink() unmaps the tail chunk right after a kernel that still uses it was enqueued, without waiting for the stream.
// expect: vmm_lifecycle=1, missing_sync=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define DRV(call)                                                              \
  do {                                                                         \
    CUresult res_ = (call);                                                    \
    if (res_ != CUDA_SUCCESS) {                                                \
      const char* name_ = "?";                                                 \
      cuGetErrorName(res_, &name_);                                            \
      std::fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #call, name_); \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

#define RT(call)                                                               \
  do {                                                                         \
    cudaError_t err_ = (call);                                                 \
    if (err_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #call,      \
                   cudaGetErrorString(err_));                                  \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

class GrowableBuffer {
 public:
  GrowableBuffer(size_t max_bytes, CUstream stream) : stream_(stream) {
    prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop_.location.id = 0;
    DRV(cuMemGetAllocationGranularity(&chunk_, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    reserved_ = ((max_bytes + chunk_ - 1) / chunk_) * chunk_;
    DRV(cuMemAddressReserve(&base_, reserved_, 0, 0, 0));
    map_chunk();
    DRV(cuMemsetD32Async(base_, 0, mapped_ / 4, stream_));  // EXPECT: vmm_lifecycle
    grant_access(0, mapped_);
  }

  ~GrowableBuffer() {
    cuStreamSynchronize(stream_);
    for (size_t i = handles_.size(); i-- > 0;) {
      cuMemUnmap(base_ + i * chunk_, chunk_);
      cuMemRelease(handles_[i]);
    }
    cuMemAddressFree(base_, reserved_);
  }

  // make at least `bytes` usable; new chunks are zeroed
  void grow_to(size_t bytes) {
    while (mapped_ < bytes && mapped_ < reserved_) {
      const size_t off = mapped_;
      map_chunk();
      grant_access(off, chunk_);
      DRV(cuMemsetD32Async(base_ + off, 0, chunk_ / 4, stream_));
    }
  }

  // hand the tail chunk back to the driver when the working set drops
  void shrink_by_one() {
    if (handles_.size() <= 1) return;
    mapped_ -= chunk_;
    DRV(cuMemUnmap(base_ + mapped_, chunk_));  // EXPECT: missing_sync
    DRV(cuMemRelease(handles_.back()));
    handles_.pop_back();
  }

  float* data() const { return reinterpret_cast<float*>(base_); }
  size_t size_bytes() const { return mapped_; }

 private:
  void map_chunk() {
    CUmemGenericAllocationHandle h;
    DRV(cuMemCreate(&h, chunk_, &prop_, 0));
    DRV(cuMemMap(base_ + mapped_, chunk_, 0, h, 0));
    handles_.push_back(h);
    mapped_ += chunk_;
  }
  void grant_access(size_t off, size_t len) {
    CUmemAccessDesc desc = {};
    desc.location = prop_.location;
    desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    DRV(cuMemSetAccess(base_ + off, len, &desc, 1));
  }

  CUmemAllocationProp prop_ = {};
  CUstream stream_;
  CUdeviceptr base_ = 0;
  size_t chunk_ = 0, reserved_ = 0, mapped_ = 0;
  std::vector<CUmemGenericAllocationHandle> handles_;
};

__global__ void decay(float* v, size_t n, float factor) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] * factor + 1.f;
}

int main() {
  RT(cudaSetDevice(0));
  RT(cudaFree(0));
  cudaStream_t stream;
  RT(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  float* h_probe = nullptr;
  RT(cudaMallocHost(&h_probe, 4 * sizeof(float)));
  {
    GrowableBuffer buf(size_t(1) << 30, stream);
    buf.grow_to(size_t(96) << 20);

    size_t n = buf.size_bytes() / sizeof(float);
    decay<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(buf.data(), n, 0.5f);
    RT(cudaGetLastError());
    buf.shrink_by_one();

    n = buf.size_bytes() / sizeof(float);
    decay<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(buf.data(), n, 0.5f);
    RT(cudaMemcpyAsync(h_probe, buf.data(), 4 * sizeof(float), cudaMemcpyDeviceToHost, stream));
    RT(cudaStreamSynchronize(stream));
    std::printf("probe: %.3f %.3f %.3f %.3f (%zu MiB mapped)\n", h_probe[0], h_probe[1],
                h_probe[2], h_probe[3], buf.size_bytes() >> 20);
  }
  RT(cudaFreeHost(h_probe));
  RT(cudaStreamDestroy(stream));
  return 0;
}
