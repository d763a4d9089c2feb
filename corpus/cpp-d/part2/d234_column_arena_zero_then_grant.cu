// case: a GPU column-store arena zeroes its freshly mapped VMM range with cuMemsetD32Async before calling cuMemSetAccess, and later stamps its header by writing through the mapping's address on the host as if it were host memory.
// expect: vmm_lifecycle=1, host_deref_device_ptr=1
#include <cuda.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                           \
  do {                                                                           \
    CUresult r_ = (call);                                                        \
    if (r_ != CUDA_SUCCESS) {                                                    \
      const char* s_ = nullptr;                                                  \
      cuGetErrorString(r_, &s_);                                                 \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, s_ ? s_ : "?");     \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

struct ArenaHeader {
  uint32_t magic;
  uint32_t version;
  uint64_t bytes_used;
};

class ColumnArena {
 public:
  ColumnArena(CUdevice dev, size_t bytes, CUstream stream) : stream_(stream) {
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = static_cast<int>(dev);
    size_t gran = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    size_ = (bytes + gran - 1) / gran * gran;
    CU_CHECK(cuMemAddressReserve(&base_, size_, 0, 0, 0));
    CU_CHECK(cuMemCreate(&handle_, size_, &prop, 0));
    CU_CHECK(cuMemMap(base_, size_, 0, handle_, 0));
    // start from a clean arena
    cuMemsetD32Async(base_, 0, size_ / 4, stream_);  // EXPECT: vmm_lifecycle
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(base_, size_, &acc, 1));
    used_ = sizeof(ArenaHeader);
  }
  ~ColumnArena() {
    cuStreamSynchronize(stream_);
    cuMemUnmap(base_, size_);
    cuMemRelease(handle_);
    cuMemAddressFree(base_, size_);
  }

  CUdeviceptr allocColumn(size_t bytes) {
    CUdeviceptr p = base_ + used_;
    used_ += (bytes + 255) / 256 * 256;
    return p;
  }

  void stampHeader() {
    auto* hdr = reinterpret_cast<ArenaHeader*>(base_);
    hdr->magic = 0xC011A7E5u;  // EXPECT: host_deref_device_ptr
    hdr->version = 3;
    hdr->bytes_used = used_;
  }

 private:
  CUstream stream_;
  CUmemGenericAllocationHandle handle_ = 0;
  CUdeviceptr base_ = 0;
  size_t size_ = 0;
  size_t used_ = 0;
};

int main() {
  CU_CHECK(cuInit(0));
  CUdevice dev;
  CUcontext ctx;
  CU_CHECK(cuDeviceGet(&dev, 0));
  CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU_CHECK(cuCtxSetCurrent(ctx));
  CUstream stream;
  CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  {
    ColumnArena arena(dev, 64u << 20, stream);
    CUdeviceptr prices = arena.allocColumn(1000000 * sizeof(float));
    CUdeviceptr qty = arena.allocColumn(1000000 * sizeof(int32_t));
    CU_CHECK(cuMemsetD32Async(prices, 0x3f800000u, 1000000, stream));  // 1.0f
    CU_CHECK(cuMemsetD32Async(qty, 1, 1000000, stream));
    CU_CHECK(cuStreamSynchronize(stream));
    arena.stampHeader();
    std::printf("arena ready: columns at %#llx and %#llx\n", (unsigned long long)prices, (unsigned long long)qty);
  }
  CU_CHECK(cuStreamDestroy(stream));
  CU_CHECK(cuDevicePrimaryCtxRelease(dev));
  return 0;
}
