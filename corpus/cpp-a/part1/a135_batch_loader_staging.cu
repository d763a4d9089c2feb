// case: training data loader with a single pinned staging buffer; each iteration memcpy's the next batch into the staging buffer while the previous batch's cudaMemcpyAsync from it may still be running (the stream is only synchronized at the end of the epoch)
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "loader: %s:%d %s\n", __FILE__, __LINE__,            \
                   cudaGetErrorString(e_));                                     \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

__global__ void sgd_linear(const float* __restrict__ batch, int rows, int cols, float* __restrict__ w, float lr) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float g = 0.f;
  for (int r = 0; r < rows; ++r) g += batch[r * cols + c];
  w[c] -= lr * g / rows;
}

class DataLoader {
 public:
  DataLoader(const std::vector<float>& dataset, int batch_rows, int cols, cudaStream_t s)
      : dataset_(dataset), rows_(batch_rows), cols_(cols), stream_(s) {
    batch_bytes_ = size_t(rows_) * cols_ * sizeof(float);
    CUDA_CHECK(cudaMallocHost(&staging_, batch_bytes_));
    CUDA_CHECK(cudaMalloc(&d_batch_, batch_bytes_));
  }
  ~DataLoader() {
    cudaStreamSynchronize(stream_);
    cudaFree(d_batch_);
    cudaFreeHost(staging_);
  }

  size_t num_batches() const { return dataset_.size() / (size_t(rows_) * cols_); }

  // Stages batch `b` and enqueues its upload; returns the device batch.
  const float* next(size_t b) {
    const float* src = dataset_.data() + b * size_t(rows_) * cols_;
    std::memcpy(staging_, src, batch_bytes_);  // EXPECT: missing_sync
    CUDA_CHECK(cudaMemcpyAsync(d_batch_, staging_, batch_bytes_, cudaMemcpyHostToDevice, stream_));
    return d_batch_;
  }

 private:
  const std::vector<float>& dataset_;
  int rows_, cols_;
  cudaStream_t stream_;
  size_t batch_bytes_ = 0;
  float* staging_ = nullptr;
  float* d_batch_ = nullptr;
};

int main() {
  const int rows = 512, cols = 1024, batches = 64;
  std::vector<float> dataset(size_t(rows) * cols * batches);
  for (size_t i = 0; i < dataset.size(); ++i) dataset[i] = float(i % 1000) * 1e-3f;

  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float* d_w = nullptr;
  CUDA_CHECK(cudaMalloc(&d_w, cols * sizeof(float)));
  CUDA_CHECK(cudaMemsetAsync(d_w, 0, cols * sizeof(float), s));
  {
    DataLoader loader(dataset, rows, cols, s);
    for (int epoch = 0; epoch < 3; ++epoch) {
      for (size_t b = 0; b < loader.num_batches(); ++b) {
        const float* d_batch = loader.next(b);
        sgd_linear<<<(cols + 255) / 256, 256, 0, s>>>(d_batch, rows, cols, d_w, 0.01f);
      }
      CUDA_CHECK(cudaStreamSynchronize(s));
      std::printf("epoch %d done\n", epoch);
    }
  }
  std::vector<float> w(cols);
  CUDA_CHECK(cudaMemcpy(w.data(), d_w, cols * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("w[0] = %f\n", w[0]);
  cudaFree(d_w);
  cudaStreamDestroy(s);
  return 0;
}
