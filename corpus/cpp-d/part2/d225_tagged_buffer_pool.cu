// case: a streaming feature-store pool hands out blocks of four kinds (device, pinned, managed, stream-ordered) tagged with their kind, and release() switches on the tag (cudaFree, cudaFreeHost, cudaFree, cudaFreeAsync); trim() frees a stream-ordered block with plain cudaFree after a sync, which CUDA allows; correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

enum class MemKind { Device, Pinned, Managed, StreamOrdered };

struct Block {
  void* ptr = nullptr;
  size_t bytes = 0;
  MemKind kind = MemKind::Device;
};

class BufferPool {
 public:
  explicit BufferPool(cudaStream_t s) : stream_(s) {}
  ~BufferPool() {
    cudaStreamSynchronize(stream_);
    for (Block& b : live_) release(b);
    cudaStreamSynchronize(stream_);  // the cudaFreeAsync calls above are stream-ordered
  }

  Block acquire(size_t bytes, MemKind kind) {
    Block b;
    b.bytes = bytes;
    b.kind = kind;
    switch (kind) {
      case MemKind::Device:        CUDA_CHECK(cudaMalloc(&b.ptr, bytes)); break;
      case MemKind::Pinned:        CUDA_CHECK(cudaMallocHost(&b.ptr, bytes)); break;
      case MemKind::Managed:       CUDA_CHECK(cudaMallocManaged(&b.ptr, bytes)); break;
      case MemKind::StreamOrdered: CUDA_CHECK(cudaMallocAsync(&b.ptr, bytes, stream_)); break;
    }
    live_.push_back(b);
    return b;
  }

  // Drops the stream-ordered scratch blocks between batches.
  void trim() {
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::vector<Block> keep;
    for (Block& b : live_) {
      if (b.kind == MemKind::StreamOrdered) CUDA_CHECK(cudaFree(b.ptr));
      else keep.push_back(b);
    }
    live_.swap(keep);
  }

 private:
  void release(Block& b) {
    switch (b.kind) {
      case MemKind::Device:        cudaFree(b.ptr); break;
      case MemKind::Pinned:        cudaFreeHost(b.ptr); break;
      case MemKind::Managed:       cudaFree(b.ptr); break;
      case MemKind::StreamOrdered: cudaFreeAsync(b.ptr, stream_); break;
    }
    b.ptr = nullptr;
  }

  cudaStream_t stream_;
  std::vector<Block> live_;
};

__global__ void hash_features(const int* ids, int n, float* scratch, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  scratch[i] = static_cast<float>((ids[i] * 2654435761u) % 1000) / 1000.f;
  out[i] = scratch[i] * 2.f - 1.f;
}

int main() {
  const int n = 1 << 18;
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  {
    BufferPool pool(s);
    Block ids_host = pool.acquire(n * sizeof(int), MemKind::Pinned);
    Block ids_dev = pool.acquire(n * sizeof(int), MemKind::Device);
    Block features = pool.acquire(n * sizeof(float), MemKind::Managed);
    int* h_ids = static_cast<int*>(ids_host.ptr);
    for (int batch = 0; batch < 3; ++batch) {
      Block scratch = pool.acquire(n * sizeof(float), MemKind::StreamOrdered);
      for (int i = 0; i < n; ++i) h_ids[i] = i * 7 + batch;
      CUDA_CHECK(cudaMemcpyAsync(ids_dev.ptr, h_ids, n * sizeof(int), cudaMemcpyHostToDevice, s));
      hash_features<<<(n + 255) / 256, 256, 0, s>>>(static_cast<int*>(ids_dev.ptr), n,
                                                     static_cast<float*>(scratch.ptr), static_cast<float*>(features.ptr));
      CUDA_CHECK(cudaGetLastError());
      pool.trim();  // synchronizes the stream, then frees the scratch block
      const float* f = static_cast<const float*>(features.ptr);
      std::printf("batch %d: feature[1]=%.4f\n", batch, f[1]);
    }
  }
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}
