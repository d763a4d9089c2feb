// Embedding projection service. Requests are uploaded and downloaded on a
// dedicated copy stream; the projection GEMM runs on the compute stream that
// the cuBLAS handle is bound to. The host only ever waits on the copy stream.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "CUDA %s at %s:%d\n", cudaGetErrorString(err_),      \
                   __FILE__, __LINE__);                                         \
      std::abort();                                                             \
    }                                                                           \
  } while (0)

#define CUBLAS_CHECK(call)                                                      \
  do {                                                                          \
    cublasStatus_t st_ = (call);                                                \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                         \
      std::fprintf(stderr, "cuBLAS %d at %s:%d\n", static_cast<int>(st_),       \
                   __FILE__, __LINE__);                                         \
      std::abort();                                                             \
    }                                                                           \
  } while (0)

namespace {

constexpr int kInDim = 768;
constexpr int kOutDim = 256;
constexpr int kMaxBatch = 64;

struct Projector {
  cudaStream_t compute = nullptr;
  cudaStream_t copy = nullptr;
  cudaEvent_t uploaded = nullptr;
  cublasHandle_t blas = nullptr;
  float* d_P = nullptr;    // kOutDim x kInDim, column-major
  float* d_in = nullptr;   // kInDim x kMaxBatch
  float* d_out = nullptr;  // kOutDim x kMaxBatch
  float* h_in = nullptr;   // pinned staging
  float* h_out = nullptr;  // pinned staging
};

void projector_init(Projector& p, const std::vector<float>& weights) {
  CUDA_CHECK(cudaStreamCreateWithFlags(&p.compute, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&p.copy, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreateWithFlags(&p.uploaded, cudaEventDisableTiming));
  CUBLAS_CHECK(cublasCreate(&p.blas));
  CUBLAS_CHECK(cublasSetStream(p.blas, p.compute));

  CUDA_CHECK(cudaMalloc(&p.d_P, sizeof(float) * kOutDim * kInDim));
  CUDA_CHECK(cudaMalloc(&p.d_in, sizeof(float) * kInDim * kMaxBatch));
  CUDA_CHECK(cudaMalloc(&p.d_out, sizeof(float) * kOutDim * kMaxBatch));
  CUDA_CHECK(cudaMallocHost(&p.h_in, sizeof(float) * kInDim * kMaxBatch));
  CUDA_CHECK(cudaMallocHost(&p.h_out, sizeof(float) * kOutDim * kMaxBatch));

  // Weights go through the input staging buffer once at start-up.
  float* staging = nullptr;
  CUDA_CHECK(cudaMallocHost(&staging, sizeof(float) * kOutDim * kInDim));
  std::copy(weights.begin(), weights.end(), staging);
  CUDA_CHECK(cudaMemcpyAsync(p.d_P, staging, sizeof(float) * kOutDim * kInDim,
                             cudaMemcpyHostToDevice, p.compute));
  CUDA_CHECK(cudaMemsetAsync(p.d_out, 0, sizeof(float) * kOutDim * kMaxBatch,
                             p.compute));
  CUDA_CHECK(cudaStreamSynchronize(p.compute));
  CUDA_CHECK(cudaFreeHost(staging));
}

void projector_destroy(Projector& p) {
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFreeHost(p.h_out));
  CUDA_CHECK(cudaFreeHost(p.h_in));
  CUDA_CHECK(cudaFree(p.d_out));
  CUDA_CHECK(cudaFree(p.d_in));
  CUDA_CHECK(cudaFree(p.d_P));
  CUBLAS_CHECK(cublasDestroy(p.blas));
  CUDA_CHECK(cudaEventDestroy(p.uploaded));
  CUDA_CHECK(cudaStreamDestroy(p.copy));
  CUDA_CHECK(cudaStreamDestroy(p.compute));
}

// Projects `batch` embeddings; the result lands in out (kOutDim per row).
void project(Projector& p, const float* rows, int batch, std::vector<float>& out) {
  std::copy(rows, rows + static_cast<size_t>(kInDim) * batch, p.h_in);
  CUDA_CHECK(cudaMemcpyAsync(p.d_in, p.h_in, sizeof(float) * kInDim * batch,
                             cudaMemcpyHostToDevice, p.copy));
  CUDA_CHECK(cudaEventRecord(p.uploaded, p.copy));
  CUDA_CHECK(cudaStreamWaitEvent(p.compute, p.uploaded, 0));

  const float alpha = 1.0f, beta = 0.0f;
  CUBLAS_CHECK(cublasSgemm(p.blas, CUBLAS_OP_N, CUBLAS_OP_N, kOutDim, batch,
                           kInDim, &alpha, p.d_P, kOutDim, p.d_in, kInDim,
                           &beta, p.d_out, kOutDim));

  CUDA_CHECK(cudaMemcpyAsync(p.h_out, p.d_out, sizeof(float) * kOutDim * batch, cudaMemcpyDeviceToHost, p.copy));  // EXPECT: missing_sync
  CUDA_CHECK(cudaStreamSynchronize(p.copy));
  out.assign(p.h_out, p.h_out + static_cast<size_t>(kOutDim) * batch);
}

}  // namespace

int main() {
  std::vector<float> weights(static_cast<size_t>(kOutDim) * kInDim);
  for (size_t i = 0; i < weights.size(); ++i)
    weights[i] = std::sin(0.001f * static_cast<float>(i)) * 0.05f;

  Projector proj;
  projector_init(proj, weights);

  std::vector<float> requests(static_cast<size_t>(kInDim) * kMaxBatch);
  std::vector<float> projected;
  for (int r = 0; r < 32; ++r) {
    int batch = 1 + (r * 7) % kMaxBatch;
    for (size_t i = 0; i < static_cast<size_t>(kInDim) * batch; ++i)
      requests[i] = std::cos(0.01f * static_cast<float>(i + r));
    project(proj, requests.data(), batch, projected);
    double norm = 0.0;
    for (float v : projected) norm += static_cast<double>(v) * v;
    std::printf("request %2d  batch %2d  |y| = %.4f\n", r, batch, std::sqrt(norm));
  }

  projector_destroy(proj);
  return 0;
}
