// case: transformer KV cache on a VMM reservation (map, set access, KV-append kernels, sync); release() frees the reserved range with cuMemAddressFree before unmapping it
// expect: vmm_lifecycle=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                          \
  do {                                                                          \
    CUresult r_ = (call);                                                       \
    if (r_ != CUDA_SUCCESS) {                                                   \
      std::fprintf(stderr, "kvcache: %s failed with %d\n", #call, int(r_));     \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)
#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "kvcache: %s\n", cudaGetErrorString(e_));            \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

struct KvConfig {
  int layers, heads, head_dim, max_tokens;
  size_t bytes_per_layer() const { return size_t(2) * heads * head_dim * max_tokens * sizeof(__half); }
};

// Appends one token's K and V for every head of one layer.
__global__ void append_kv(__half* layer_base, int heads, int head_dim, int max_tokens, int token,
                          const __half* __restrict__ k, const __half* __restrict__ v) {
  int h = blockIdx.x;
  int d = threadIdx.x;
  if (h >= heads || d >= head_dim) return;
  size_t kv_stride = size_t(heads) * head_dim * max_tokens;
  size_t off = (size_t(h) * max_tokens + token) * head_dim + d;
  layer_base[off] = k[h * head_dim + d];
  layer_base[kv_stride + off] = v[h * head_dim + d];
}

class KvCache {
 public:
  explicit KvCache(const KvConfig& cfg, int device) : cfg_(cfg) {
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    size_t gran = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    size_ = (cfg.bytes_per_layer() * cfg.layers + gran - 1) / gran * gran;
    CU_CHECK(cuMemAddressReserve(&base_, size_, 0, 0, 0));
    CU_CHECK(cuMemCreate(&handle_, size_, &prop, 0));
    CU_CHECK(cuMemMap(base_, size_, 0, handle_, 0));
    CUmemAccessDesc access = {};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(base_, size_, &access, 1));
  }

  __half* layer(int l) const {
    return reinterpret_cast<__half*>(base_ + size_t(l) * cfg_.bytes_per_layer());
  }

  void append(int token, const __half* d_k, const __half* d_v, cudaStream_t s) {
    for (int l = 0; l < cfg_.layers; ++l)
      append_kv<<<cfg_.heads, cfg_.head_dim, 0, s>>>(layer(l), cfg_.heads, cfg_.head_dim, cfg_.max_tokens, token, d_k, d_v);
  }

  // Called by the scheduler once the sequence is finished and its stream drained.
  void release() {
    if (!base_) return;
    CU_CHECK(cuMemRelease(handle_));
    CU_CHECK(cuMemAddressFree(base_, size_));  // EXPECT: vmm_lifecycle
    CU_CHECK(cuMemUnmap(base_, size_));
    base_ = 0;
    size_ = 0;
  }

 private:
  KvConfig cfg_;
  CUdeviceptr base_ = 0;
  size_t size_ = 0;
  CUmemGenericAllocationHandle handle_ = 0;
};

int main() {
  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaFree(0));
  KvConfig cfg{32, 32, 128, 4096};
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  __half *d_k = nullptr, *d_v = nullptr;
  CUDA_CHECK(cudaMalloc(&d_k, cfg.heads * cfg.head_dim * sizeof(__half)));
  CUDA_CHECK(cudaMalloc(&d_v, cfg.heads * cfg.head_dim * sizeof(__half)));
  CUDA_CHECK(cudaMemsetAsync(d_k, 0, cfg.heads * cfg.head_dim * sizeof(__half), s));
  CUDA_CHECK(cudaMemsetAsync(d_v, 0, cfg.heads * cfg.head_dim * sizeof(__half), s));

  KvCache cache(cfg, 0);
  for (int t = 0; t < 256; ++t) cache.append(t, d_k, d_v, s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  cache.release();

  cudaFree(d_v);
  cudaFree(d_k);
  cudaStreamDestroy(s);
  std::puts("sequence done");
  return 0;
}
