// case: a recommendation model's embedding cache gathers rows on the GPU and copies them into a staging buffer whose header macro makes it write-combined; after the stream sync the host reads the rows to compute L2 norms (an uncached read).
// expect: write_combined_host_read=1
#include "staging.cuh"
#include <cmath>
#include <vector>

__global__ void init_table(float* table, size_t rows, int dim) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < rows * dim) table[i] = 0.001f * static_cast<float>((i * 2654435761u) % 1000);
}

__global__ void gather_rows(const float* table, const int* ids, int n, int dim, float* out) {
  int r = blockIdx.x;
  if (r >= n) return;
  for (int c = threadIdx.x; c < dim; c += blockDim.x) out[r * dim + c] = table[(size_t)ids[r] * dim + c];
}

class EmbeddingCache {
 public:
  EmbeddingCache(size_t rows, int dim, int max_batch)
      : rows_(rows), dim_(dim), max_batch_(max_batch),
        table_(rows * dim), d_ids_(max_batch), d_rows_(size_t(max_batch) * dim),
        h_ids_(max_batch), h_rows_(size_t(max_batch) * dim) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    size_t total = rows_ * dim_;
    init_table<<<static_cast<unsigned>((total + 255) / 256), 256, 0, stream_>>>(table_.get(), rows_, dim_);
    CUDA_CHECK(cudaGetLastError());
  }
  ~EmbeddingCache() {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }

  std::vector<float> lookupNorms(const std::vector<int>& ids) {
    int n = static_cast<int>(ids.size());
    if (n > max_batch_) n = max_batch_;
    int* hid = h_ids_.get();
    for (int i = 0; i < n; ++i) hid[i] = ids[i] % static_cast<int>(rows_);
    CUDA_CHECK(cudaMemcpyAsync(d_ids_.get(), hid, n * sizeof(int), cudaMemcpyHostToDevice, stream_));
    gather_rows<<<n, 128, 0, stream_>>>(table_.get(), d_ids_.get(), n, dim_, d_rows_.get());
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_rows_.get(), d_rows_.get(), size_t(n) * dim_ * sizeof(float),
                               cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));

    std::vector<float> norms(n);
    const float* rows = h_rows_.get();
    for (int r = 0; r < n; ++r) {
      float ss = 0.f;
      for (int c = 0; c < dim_; ++c) {
        float v = rows[size_t(r) * dim_ + c];  // EXPECT: write_combined_host_read
        ss += v * v;
      }
      norms[r] = std::sqrt(ss);
    }
    return norms;
  }

 private:
  size_t rows_;
  int dim_;
  int max_batch_;
  cudaStream_t stream_ = nullptr;
  DeviceArray<float> table_;
  DeviceArray<int> d_ids_;
  DeviceArray<float> d_rows_;
  PinnedArray<int> h_ids_;
  HostStaging<float> h_rows_;
};

int main() {
  EmbeddingCache cache(1 << 20, 128, 4096);
  std::vector<int> batch(4096);
  for (int step = 0; step < 10; ++step) {
    for (size_t i = 0; i < batch.size(); ++i) batch[i] = static_cast<int>((i * 7919 + step * 104729) & 0xfffff);
    std::vector<float> norms = cache.lookupNorms(batch);
    double mean = 0;
    for (float x : norms) mean += x;
    std::printf("step %d mean norm %.4f\n", step, mean / norms.size());
  }
  return 0;
}
