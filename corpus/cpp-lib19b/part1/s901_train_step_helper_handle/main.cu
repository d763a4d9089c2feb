// Softmax-regression trainer: forward GEMM through cuBLAS, fused loss/gradient
// and SGD kernels on the trainer's own non-blocking stream.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include "check.h"
#include "blas_context.h"
#include "batch_loader.h"

constexpr int kFeatures = 256;
constexpr int kClasses = 16;
constexpr int kBatch = 128;
constexpr int kSteps = 200;

struct Model {
  float* W = nullptr;  // kClasses x kFeatures, column-major
};

struct Batch {
  float* x = nullptr;        // kFeatures x kBatch
  int* y = nullptr;          // kBatch
  float* logits = nullptr;   // kClasses x kBatch
  float* dlogits = nullptr;  // kClasses x kBatch
  float* loss = nullptr;     // scalar
};

__global__ void softmax_xent_grad(const float* logits, const int* labels,
                                  int classes, int batch, float* dlogits,
                                  float* loss) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= batch) return;
  const float* z = logits + static_cast<size_t>(b) * classes;
  float m = z[0];
  for (int c = 1; c < classes; ++c) m = fmaxf(m, z[c]);
  float sum = 0.f;
  for (int c = 0; c < classes; ++c) sum += __expf(z[c] - m);
  float* g = dlogits + static_cast<size_t>(b) * classes;
  for (int c = 0; c < classes; ++c) {
    float p = __expf(z[c] - m) / sum;
    g[c] = (p - (c == labels[b] ? 1.f : 0.f)) / batch;
  }
  atomicAdd(loss, (logf(sum) + m - z[labels[b]]) / batch);
}

// W[c, f] -= lr * sum_b dlogits[c, b] * x[f, b]
__global__ void sgd_linear_update(float* W, const float* x, const float* dlogits,
                                  int classes, int features, int batch, float lr) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= classes * features) return;
  int c = idx % classes;
  int f = idx / classes;
  float acc = 0.f;
  for (int b = 0; b < batch; ++b)
    acc += dlogits[static_cast<size_t>(b) * classes + c] *
           x[static_cast<size_t>(b) * features + f];
  W[idx] -= lr * acc;
}

static float train_step(cublasHandle_t blas, cudaStream_t stream, Model& model,
                        Batch& batch, float* h_loss, float lr) {
  const float one = 1.0f;
  const float zero = 0.0f;
  // logits = W * x
  CUBLAS_CHECK(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, kClasses, kBatch,
                           kFeatures, &one, model.W, kClasses, batch.x,
                           kFeatures, &zero, batch.logits, kClasses));

  CUDA_CHECK(cudaMemsetAsync(batch.loss, 0, sizeof(float), stream));
  softmax_xent_grad<<<(kBatch + 127) / 128, 128, 0, stream>>>(batch.logits, batch.y, kClasses, kBatch, batch.dlogits, batch.loss);  // EXPECT: missing_sync
  CUDA_CHECK(cudaGetLastError());

  const int params = kClasses * kFeatures;
  sgd_linear_update<<<(params + 255) / 256, 256, 0, stream>>>(
      model.W, batch.x, batch.dlogits, kClasses, kFeatures, kBatch, lr);
  CUDA_CHECK(cudaGetLastError());

  CUDA_CHECK(cudaMemcpyAsync(h_loss, batch.loss, sizeof(float),
                             cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return *h_loss;
}

int main() {
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cublasHandle_t blas = create_blas_handle();

  Model model;
  Batch batch;
  CUDA_CHECK(cudaMalloc(&model.W, sizeof(float) * kClasses * kFeatures));
  CUDA_CHECK(cudaMalloc(&batch.x, sizeof(float) * kFeatures * kBatch));
  CUDA_CHECK(cudaMalloc(&batch.y, sizeof(int) * kBatch));
  CUDA_CHECK(cudaMalloc(&batch.logits, sizeof(float) * kClasses * kBatch));
  CUDA_CHECK(cudaMalloc(&batch.dlogits, sizeof(float) * kClasses * kBatch));
  CUDA_CHECK(cudaMalloc(&batch.loss, sizeof(float)));

  float* h_loss = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_loss, sizeof(float)));

  // Zero-initialised weights and activations.
  CUDA_CHECK(cudaMemsetAsync(model.W, 0, sizeof(float) * kClasses * kFeatures, stream));
  CUDA_CHECK(cudaMemsetAsync(batch.logits, 0, sizeof(float) * kClasses * kBatch, stream));
  CUDA_CHECK(cudaMemsetAsync(batch.dlogits, 0, sizeof(float) * kClasses * kBatch, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));

  {
    BatchLoader loader(kFeatures, kBatch, kClasses, stream);
    for (int step = 0; step < kSteps; ++step) {
      loader.load(step, batch.x, batch.y);
      float loss = train_step(blas, stream, model, batch, h_loss, 0.5f);
      if (step % 20 == 0) std::printf("step %4d  loss %.5f\n", step, loss);
    }
  }

  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFreeHost(h_loss));
  CUDA_CHECK(cudaFree(batch.loss));
  CUDA_CHECK(cudaFree(batch.dlogits));
  CUDA_CHECK(cudaFree(batch.logits));
  CUDA_CHECK(cudaFree(batch.y));
  CUDA_CHECK(cudaFree(batch.x));
  CUDA_CHECK(cudaFree(model.W));
  CUBLAS_CHECK(cublasDestroy(blas));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
