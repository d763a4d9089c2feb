// case: recommendation-model embedding table held in std::shared_ptr members with lambda deleters; the pinned lookup buffer's deleter is right (cudaFreeHost), but the table itself comes from cudaMalloc and its deleter, copied from the pinned one, calls cudaFreeHost
// expect: mismatched_free=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "embedding: %s\n", cudaGetErrorString(e_));          \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

using index_t = int32_t;

__global__ void gather_sum(const float* __restrict__ table, const index_t* __restrict__ ids,
                           const index_t* __restrict__ offsets, int bags, int dim, float* __restrict__ out) {
  int b = blockIdx.x;
  int d = threadIdx.x;
  if (b >= bags || d >= dim) return;
  float acc = 0.f;
  for (index_t k = offsets[b]; k < offsets[b + 1]; ++k) acc += table[size_t(ids[k]) * dim + d];
  out[size_t(b) * dim + d] = acc;
}

__global__ void init_table(float* table, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) table[i] = float(i % 97) * 1e-3f;
}

class EmbeddingBag {
 public:
  EmbeddingBag(size_t rows, int dim, int max_ids, int max_bags, cudaStream_t stream)
      : rows_(rows), dim_(dim), max_ids_(max_ids), max_bags_(max_bags), stream_(stream) {
    float* raw_table = nullptr;
    CUDA_CHECK(cudaMalloc(&raw_table, rows * dim * sizeof(float)));
    d_table_ = std::shared_ptr<float>(raw_table, [](float* p) { cudaFreeHost(p); });  // EXPECT: mismatched_free

    index_t* raw_lookup = nullptr;
    CUDA_CHECK(cudaMallocHost(&raw_lookup, (max_ids + max_bags + 1) * sizeof(index_t)));
    h_lookup_ = std::shared_ptr<index_t>(raw_lookup, [](index_t* p) { cudaFreeHost(p); });

    float* raw_out = nullptr;
    CUDA_CHECK(cudaMallocHost(&raw_out, size_t(max_bags) * dim * sizeof(float)));
    h_out_ = std::shared_ptr<float>(raw_out, [](float* p) { cudaFreeHost(p); });

    CUDA_CHECK(cudaMalloc(&d_lookup_, (max_ids + max_bags + 1) * sizeof(index_t)));
    CUDA_CHECK(cudaMalloc(&d_out_, size_t(max_bags) * dim * sizeof(float)));
    init_table<<<(rows * dim + 255) / 256, 256, 0, stream_>>>(d_table_.get(), rows * dim);
  }

  ~EmbeddingBag() {
    cudaStreamSynchronize(stream_);
    cudaFree(d_out_);
    cudaFree(d_lookup_);
  }

  const float* lookup(const std::vector<std::vector<index_t>>& bags) {
    index_t* ids = h_lookup_.get();
    index_t* offsets = ids + max_ids_;
    int n = 0, b = 0;
    offsets[0] = 0;
    for (const auto& bag : bags) {
      for (index_t id : bag) ids[n++] = id;
      offsets[++b] = n;
    }
    CUDA_CHECK(cudaMemcpyAsync(d_lookup_, h_lookup_.get(), (max_ids_ + b + 1) * sizeof(index_t), cudaMemcpyHostToDevice, stream_));
    gather_sum<<<b, dim_, 0, stream_>>>(d_table_.get(), d_lookup_, d_lookup_ + max_ids_, b, dim_, d_out_);
    CUDA_CHECK(cudaMemcpyAsync(h_out_.get(), d_out_, size_t(b) * dim_ * sizeof(float), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    return h_out_.get();
  }

 private:
  size_t rows_;
  int dim_, max_ids_, max_bags_;
  cudaStream_t stream_;
  std::shared_ptr<float> d_table_;
  std::shared_ptr<index_t> h_lookup_;
  std::shared_ptr<float> h_out_;
  index_t* d_lookup_ = nullptr;
  float* d_out_ = nullptr;
};

int main() {
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  {
    EmbeddingBag emb(1'000'000, 64, 4096, 256, s);
    std::vector<std::vector<index_t>> bags = {{1, 5, 9}, {42}, {7, 7, 7, 7}};
    const float* pooled = emb.lookup(bags);
    std::printf("bag0[0]=%f bag2[0]=%f\n", pooled[0], pooled[2 * 64]);
  }
  cudaStreamDestroy(s);
  return 0;
}
