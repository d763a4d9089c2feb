// case: a paged LLM KV cache grows by mapping a new chunk at the end of its reservation and granting access to exactly that chunk before use; the handle is released right after mapping (allowed: the memory lives until unmapped), and teardown unmaps every chunk before cuMemAddressFree; correct.
// expect: none
#include "vmm_util.cuh"
#include <cuda_runtime.h>
#include <memory>

constexpr size_t kFloatsPerToken = 2ull * 32 * 128;

__global__ void write_token(float* cache, size_t token, int step) {
  float* slot = cache + token * kFloatsPerToken;
  for (size_t i = threadIdx.x; i < kFloatsPerToken; i += blockDim.x) slot[i] = 0.001f * ((i + step) % 997);
}

__global__ void attend(const float* cache, size_t tokens, float* scores) {
  size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (t < tokens) scores[t] = cache[t * kFloatsPerToken] + cache[t * kFloatsPerToken + kFloatsPerToken - 1];
}

class PagedKvCache {
 public:
  static std::unique_ptr<PagedKvCache> create(int device, size_t max_tokens, CUstream stream) {
    return std::unique_ptr<PagedKvCache>(new PagedKvCache(device, max_tokens, stream));
  }
  ~PagedKvCache() {
    CU_CHECK(cuStreamSynchronize(stream_));
    for (size_t off = 0; off < mapped_; off += chunk_) CU_CHECK(cuMemUnmap(base_ + off, chunk_));
    CU_CHECK(cuMemAddressFree(base_, reserved_));
  }

  void appendToken(int step) {
    while ((tokens_ + 1) * kFloatsPerToken * sizeof(float) > mapped_) growOneChunk();
    write_token<<<1, 256, 0, stream_>>>(data(), tokens_, step);
    ++tokens_;
  }
  float* data() const { return reinterpret_cast<float*>(base_); }
  size_t tokens() const { return tokens_; }

 private:
  PagedKvCache(int device, size_t max_tokens, CUstream stream)
      : stream_(stream), prop_(devicePinnedProp(device)), access_(readWriteFor(device)) {
    CU_CHECK(cuMemGetAllocationGranularity(&chunk_, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    reserved_ = roundUp(max_tokens * kFloatsPerToken * sizeof(float), chunk_);
    CU_CHECK(cuMemAddressReserve(&base_, reserved_, 0, 0, 0));
  }

  void growOneChunk() {
    CUmemGenericAllocationHandle h;
    CU_CHECK(cuMemCreate(&h, chunk_, &prop_, 0));
    CU_CHECK(cuMemMap(base_ + mapped_, chunk_, 0, h, 0));
    CU_CHECK(cuMemRelease(h));  // the mapping keeps the memory alive
    CU_CHECK(cuMemSetAccess(base_ + mapped_, chunk_, &access_, 1));
    mapped_ += chunk_;
  }

  CUstream stream_;
  CUmemAllocationProp prop_;
  CUmemAccessDesc access_;
  CUdeviceptr base_ = 0;
  size_t chunk_ = 0;
  size_t reserved_ = 0;
  size_t mapped_ = 0;
  size_t tokens_ = 0;
};

int main() {
  CU_CHECK(cuInit(0));
  cudaSetDevice(0);
  cudaFree(nullptr);
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  float* d_scores = nullptr;
  float* h_scores = nullptr;
  const size_t max_tokens = 2048;
  cudaMalloc(&d_scores, max_tokens * sizeof(float));
  cudaMallocHost(&h_scores, max_tokens * sizeof(float));

  auto cache = PagedKvCache::create(0, max_tokens, stream);
  for (int step = 0; step < 300; ++step) cache->appendToken(step);
  attend<<<(unsigned)((cache->tokens() + 127) / 128), 128, 0, stream>>>(cache->data(), cache->tokens(), d_scores);
  cudaMemcpyAsync(h_scores, d_scores, cache->tokens() * sizeof(float), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  std::printf("%zu tokens, score[0]=%.3f\n", cache->tokens(), h_scores[0]);

  cache.reset();  // synchronizes, unmaps each chunk, frees the range
  cudaFreeHost(h_scores);
  cudaFree(d_scores);
  cudaStreamDestroy(stream);
  return 0;
}
