// case: an LLM KV cache reserves a VA window and calls cuMemSetAccess on the whole window once in its constructor, before anything is mapped (which grants nothing); grow() only creates and maps chunks, so the append kernel writes mappings that never got access.
// expect: vmm_lifecycle=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CU_CHECK(call)                                                         \
  do {                                                                         \
    CUresult r_ = (call);                                                      \
    if (r_ != CUDA_SUCCESS) {                                                  \
      const char* s_ = nullptr;                                                \
      cuGetErrorString(r_, &s_);                                               \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, s_ ? s_ : "?");   \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

constexpr int kHeads = 32, kHeadDim = 128;
constexpr size_t kFloatsPerToken = 2ull * kHeads * kHeadDim;  // K and V

__global__ void append_kv(float* cache, size_t token, int step, float* norms) {
  float* slot = cache + token * kFloatsPerToken;
  float acc = 0.f;
  for (size_t i = threadIdx.x; i < kFloatsPerToken; i += blockDim.x) {
    float v = __sinf(0.01f * (i + step));
    slot[i] = v;
    acc += v * v;
  }
  atomicAdd(&norms[step], acc);
}

class KvCache {
 public:
  KvCache(int device, size_t max_tokens, cudaStream_t stream) : stream_(stream) {
    prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop_.location.id = device;
    CU_CHECK(cuMemGetAllocationGranularity(&chunk_, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    size_t want = max_tokens * kFloatsPerToken * sizeof(float);
    reserved_ = (want + chunk_ - 1) / chunk_ * chunk_;
    CU_CHECK(cuMemAddressReserve(&base_, reserved_, 0, 0, 0));
    access_.location = prop_.location;
    access_.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    // Grant read/write on the whole window once, so that grow() only has to map.
    (void)cuMemSetAccess(base_, reserved_, &access_, 1);
  }
  ~KvCache() {
    cuStreamSynchronize(stream_);
    for (size_t i = 0; i < handles_.size(); ++i) {
      cuMemUnmap(base_ + i * chunk_, chunk_);
      cuMemRelease(handles_[i]);
    }
    cuMemAddressFree(base_, reserved_);
  }

  void append(int step, float* d_norms) {
    size_t need = (tokens_ + 1) * kFloatsPerToken * sizeof(float);
    while (mapped_ < need) grow();
    append_kv<<<1, 256, 0, stream_>>>(reinterpret_cast<float*>(base_), tokens_, step, d_norms);  // EXPECT: vmm_lifecycle
    ++tokens_;
  }
  size_t tokens() const { return tokens_; }

 private:
  void grow() {
    CUmemGenericAllocationHandle h;
    CU_CHECK(cuMemCreate(&h, chunk_, &prop_, 0));
    CU_CHECK(cuMemMap(base_ + mapped_, chunk_, 0, h, 0));
    handles_.push_back(h);
    mapped_ += chunk_;
  }

  cudaStream_t stream_;
  CUmemAllocationProp prop_ = {};
  CUmemAccessDesc access_ = {};
  CUdeviceptr base_ = 0;
  size_t chunk_ = 0, reserved_ = 0, mapped_ = 0, tokens_ = 0;
  std::vector<CUmemGenericAllocationHandle> handles_;
};

int main() {
  CU_CHECK(cuInit(0));
  cudaSetDevice(0);
  cudaFree(nullptr);  // make the primary context current for the driver calls
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  const int steps = 64;
  float* d_norms = nullptr;
  float* h_norms = nullptr;
  cudaMalloc(&d_norms, steps * sizeof(float));
  cudaMallocHost(&h_norms, steps * sizeof(float));
  cudaMemsetAsync(d_norms, 0, steps * sizeof(float), stream);
  {
    KvCache cache(0, 4096, stream);
    for (int step = 0; step < steps; ++step) cache.append(step, d_norms);
    cudaMemcpyAsync(h_norms, d_norms, steps * sizeof(float), cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    std::printf("%zu tokens cached, last norm %.3f\n", cache.tokens(), h_norms[steps - 1]);
  }
  cudaFreeHost(h_norms);
  cudaFree(d_norms);
  cudaStreamDestroy(stream);
  return 0;
}
