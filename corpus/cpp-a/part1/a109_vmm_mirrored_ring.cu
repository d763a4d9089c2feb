// case: sensor-stream mirrored ring buffer built with VMM (one physical allocation mapped at base and base+bytes); the ingest kernel writes each sample through the producer (mirror) view and re-reads it through the consumer view with no fence.proxy.alias
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CU_CHECK(call)                                                          \
  do {                                                                          \
    CUresult r_ = (call);                                                       \
    if (r_ != CUDA_SUCCESS) {                                                   \
      const char* msg_ = nullptr;                                               \
      cuGetErrorString(r_, &msg_);                                              \
      std::fprintf(stderr, "%s -> %s\n", #call, msg_ ? msg_ : "?");             \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)
#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s -> %s\n", #call, cudaGetErrorString(e_));        \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

// Producer side keeps its pointer in the upper (mirror) view so that a block
// of samples that wraps is still contiguous for it; the envelope follower
// reads the consumer view.
__global__ void ingest(float* consumer_view, float* producer_view, size_t cap, size_t head,
                       const float* __restrict__ in, int n, float* __restrict__ envelope) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  size_t pos = (head + i) % cap;
  producer_view[pos] = in[i] * 0.5f;  // scaled sample stored in the ring
  float stored = consumer_view[pos];  // same physical word, other mapping
  envelope[i] = fabsf(stored);
}

class MirroredRing {
 public:
  MirroredRing(size_t min_bytes, int device) {
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    size_t gran = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    bytes_ = ((min_bytes + gran - 1) / gran) * gran;

    CU_CHECK(cuMemCreate(&handle_, bytes_, &prop, 0));
    CU_CHECK(cuMemAddressReserve(&base_, 2 * bytes_, 0, 0, 0));
    CU_CHECK(cuMemMap(base_, bytes_, 0, handle_, 0));
    CU_CHECK(cuMemMap(base_ + bytes_, bytes_, 0, handle_, 0));

    CUmemAccessDesc access = {};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(base_, 2 * bytes_, &access, 1));
  }

  ~MirroredRing() {
    cuMemUnmap(base_ + bytes_, bytes_);
    cuMemUnmap(base_, bytes_);
    cuMemRelease(handle_);
    cuMemAddressFree(base_, 2 * bytes_);
  }

  float* consumer_view() const { return reinterpret_cast<float*>(base_); }
  float* producer_view() const { return reinterpret_cast<float*>(base_ + bytes_); }
  size_t capacity() const { return bytes_ / sizeof(float); }

 private:
  CUmemGenericAllocationHandle handle_ = 0;
  CUdeviceptr base_ = 0;
  size_t bytes_ = 0;
};

int main() {
  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaFree(0));  // make the primary context current for the driver calls
  const int block_len = 4096;
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  float *d_in = nullptr, *d_env = nullptr, *h_env = nullptr;
  CUDA_CHECK(cudaMalloc(&d_in, block_len * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_env, block_len * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_env, block_len * sizeof(float)));
  {
    MirroredRing ring(1 << 21, 0);
    size_t head = 0;
    for (int blk = 0; blk < 64; ++blk) {
      CUDA_CHECK(cudaMemsetAsync(d_in, blk & 0x3F, block_len * sizeof(float), stream));
      ingest<<<block_len / 256, 256, 0, stream>>>(ring.consumer_view(), ring.producer_view(), ring.capacity(), head, d_in, block_len, d_env);  // EXPECT: unfenced_vmm_alias
      head = (head + block_len) % ring.capacity();
      CUDA_CHECK(cudaMemcpyAsync(h_env, d_env, block_len * sizeof(float), cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
      std::printf("block %d envelope[0]=%g\n", blk, h_env[0]);
    }
  }
  cudaFreeHost(h_env);
  cudaFree(d_env);
  cudaFree(d_in);
  cudaStreamDestroy(stream);
  return 0;
}
