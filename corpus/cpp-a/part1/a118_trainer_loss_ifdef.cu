// case: logistic-regression trainer reads the per-step loss from a write-combined pinned buffer right after its async readback; the stream sync sits under #ifdef TRAINER_SYNC_EACH_STEP, which this build does not define
// expect: missing_sync=1, write_combined_host_read=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define TRAINER_LOG_EVERY 50
// #define TRAINER_SYNC_EACH_STEP

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "trainer: %s at %s:%d\n", cudaGetErrorString(e_),    \
                   __FILE__, __LINE__);                                         \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

__global__ void forward_backward(const float* __restrict__ X, const float* __restrict__ y,
                                 const float* __restrict__ w, float* __restrict__ grad,
                                 float* __restrict__ loss, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float z = 0.f;
  for (int c = 0; c < cols; ++c) z += X[r * cols + c] * w[c];
  float p = 1.f / (1.f + __expf(-z));
  float t = y[r];
  atomicAdd(loss, -(t * __logf(p + 1e-7f) + (1.f - t) * __logf(1.f - p + 1e-7f)) / rows);
  for (int c = 0; c < cols; ++c) atomicAdd(&grad[c], (p - t) * X[r * cols + c] / rows);
}

__global__ void apply_grad(float* w, const float* grad, int cols, float lr) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) w[c] -= lr * grad[c];
}

class LogisticTrainer {
 public:
  LogisticTrainer(int rows, int cols, float lr) : rows_(rows), cols_(cols), lr_(lr) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&d_X_, size_t(rows) * cols * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y_, rows * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_w_, cols * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_grad_, cols * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_loss_, sizeof(float)));
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_loss_), sizeof(float),
                             cudaHostAllocWriteCombined | cudaHostAllocPortable));
    CUDA_CHECK(cudaMemsetAsync(d_X_, 0, size_t(rows) * cols * sizeof(float), stream_));
    CUDA_CHECK(cudaMemsetAsync(d_y_, 0, rows * sizeof(float), stream_));
    CUDA_CHECK(cudaMemsetAsync(d_w_, 0, cols * sizeof(float), stream_));
  }

  ~LogisticTrainer() {
    cudaStreamSynchronize(stream_);
    cudaFreeHost(h_loss_);
    cudaFree(d_loss_);
    cudaFree(d_grad_);
    cudaFree(d_w_);
    cudaFree(d_y_);
    cudaFree(d_X_);
    cudaStreamDestroy(stream_);
  }

  void train(int steps) {
    for (int step = 0; step < steps; ++step) {
      CUDA_CHECK(cudaMemsetAsync(d_grad_, 0, cols_ * sizeof(float), stream_));
      CUDA_CHECK(cudaMemsetAsync(d_loss_, 0, sizeof(float), stream_));
      forward_backward<<<(rows_ + 255) / 256, 256, 0, stream_>>>(d_X_, d_y_, d_w_, d_grad_, d_loss_, rows_, cols_);
      apply_grad<<<(cols_ + 127) / 128, 128, 0, stream_>>>(d_w_, d_grad_, cols_, lr_);
      CUDA_CHECK(cudaMemcpyAsync(h_loss_, d_loss_, sizeof(float), cudaMemcpyDeviceToHost, stream_));
#ifdef TRAINER_SYNC_EACH_STEP
      CUDA_CHECK(cudaStreamSynchronize(stream_));
#endif
      const float loss = *h_loss_;  // EXPECT: missing_sync, write_combined_host_read
      history_.push_back(loss);
      if (step % TRAINER_LOG_EVERY == 0) std::printf("step %4d  loss %.5f\n", step, loss);
      if (!std::isfinite(loss)) return;
    }
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  const std::vector<float>& history() const { return history_; }

 private:
  int rows_, cols_;
  float lr_;
  cudaStream_t stream_ = nullptr;
  float *d_X_ = nullptr, *d_y_ = nullptr, *d_w_ = nullptr, *d_grad_ = nullptr, *d_loss_ = nullptr;
  float* h_loss_ = nullptr;
  std::vector<float> history_;
};

int main() {
  LogisticTrainer trainer(1 << 18, 64, 0.1f);
  trainer.train(500);
  std::printf("recorded %zu losses\n", trainer.history().size());
  return 0;
}
