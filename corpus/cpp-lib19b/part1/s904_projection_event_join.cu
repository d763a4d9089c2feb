// Embedding projection pipeline: uploads and downloads on a copy stream, the
// GEMM on the compute stream the cuBLAS handle is bound to. Each hand-off
// between the two streams goes through an event.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

class ProjectionPipeline {
 public:
  static constexpr int kInDim = 768;
  static constexpr int kOutDim = 256;
  static constexpr int kMaxBatch = 64;

  explicit ProjectionPipeline(const std::vector<float>& weights) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&uploaded_, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&projected_, cudaEventDisableTiming));
    CUBLAS_CHECK(cublasCreate(&blas_));
    CUBLAS_CHECK(cublasSetStream(blas_, compute_));

    CUDA_CHECK(cudaMalloc(&d_P_, sizeof(float) * kOutDim * kInDim));
    CUDA_CHECK(cudaMalloc(&d_in_, sizeof(float) * kInDim * kMaxBatch));
    CUDA_CHECK(cudaMalloc(&d_out_, sizeof(float) * kOutDim * kMaxBatch));
    CUDA_CHECK(cudaMallocHost(&h_in_, sizeof(float) * kInDim * kMaxBatch));
    CUDA_CHECK(cudaMallocHost(&h_out_, sizeof(float) * kOutDim * kMaxBatch));

    float* staging = nullptr;
    CUDA_CHECK(cudaMallocHost(&staging, sizeof(float) * kOutDim * kInDim));
    std::copy(weights.begin(), weights.end(), staging);
    CUDA_CHECK(cudaMemcpyAsync(d_P_, staging, sizeof(float) * kOutDim * kInDim,
                               cudaMemcpyHostToDevice, compute_));
    CUDA_CHECK(cudaMemsetAsync(d_out_, 0, sizeof(float) * kOutDim * kMaxBatch,
                               compute_));
    CUDA_CHECK(cudaStreamSynchronize(compute_));
    CUDA_CHECK(cudaFreeHost(staging));
  }

  ~ProjectionPipeline() {
    cudaStreamSynchronize(copy_);
    cudaStreamSynchronize(compute_);
    cudaFreeHost(h_out_);
    cudaFreeHost(h_in_);
    cudaFree(d_out_);
    cudaFree(d_in_);
    cudaFree(d_P_);
    cublasDestroy(blas_);
    cudaEventDestroy(projected_);
    cudaEventDestroy(uploaded_);
    cudaStreamDestroy(copy_);
    cudaStreamDestroy(compute_);
  }

  ProjectionPipeline(const ProjectionPipeline&) = delete;
  ProjectionPipeline& operator=(const ProjectionPipeline&) = delete;

  void project(const float* rows, int batch, std::vector<float>& out) {
    std::copy(rows, rows + static_cast<size_t>(kInDim) * batch, h_in_);
    CUDA_CHECK(cudaMemcpyAsync(d_in_, h_in_, sizeof(float) * kInDim * batch,
                               cudaMemcpyHostToDevice, copy_));
    CUDA_CHECK(cudaEventRecord(uploaded_, copy_));
    CUDA_CHECK(cudaStreamWaitEvent(compute_, uploaded_, 0));

    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasSgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_N, kOutDim, batch,
                             kInDim, &alpha, d_P_, kOutDim, d_in_, kInDim,
                             &beta, d_out_, kOutDim));
    // The download waits for the GEMM on the device, not on the host.
    CUDA_CHECK(cudaEventRecord(projected_, compute_));
    CUDA_CHECK(cudaStreamWaitEvent(copy_, projected_, 0));

    CUDA_CHECK(cudaMemcpyAsync(h_out_, d_out_, sizeof(float) * kOutDim * batch,
                               cudaMemcpyDeviceToHost, copy_));
    CUDA_CHECK(cudaStreamSynchronize(copy_));
    out.assign(h_out_, h_out_ + static_cast<size_t>(kOutDim) * batch);
  }

 private:
  cudaStream_t compute_ = nullptr;
  cudaStream_t copy_ = nullptr;
  cudaEvent_t uploaded_ = nullptr;
  cudaEvent_t projected_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  float* d_P_ = nullptr;
  float* d_in_ = nullptr;
  float* d_out_ = nullptr;
  float* h_in_ = nullptr;
  float* h_out_ = nullptr;
};

int main() {
  using PP = ProjectionPipeline;
  std::vector<float> weights(static_cast<size_t>(PP::kOutDim) * PP::kInDim);
  for (size_t i = 0; i < weights.size(); ++i)
    weights[i] = std::sin(0.001f * static_cast<float>(i)) * 0.05f;

  PP pipeline(weights);
  std::vector<float> requests(static_cast<size_t>(PP::kInDim) * PP::kMaxBatch);
  std::vector<float> projected;
  for (int r = 0; r < 32; ++r) {
    int batch = 1 + (r * 7) % PP::kMaxBatch;
    for (size_t i = 0; i < static_cast<size_t>(PP::kInDim) * batch; ++i)
      requests[i] = std::cos(0.01f * static_cast<float>(i + r));
    pipeline.project(requests.data(), batch, projected);
    double norm = 0.0;
    for (float v : projected) norm += static_cast<double>(v) * v;
    std::printf("request %2d  batch %2d  |y| = %.4f\n", r, batch, std::sqrt(norm));
  }
  return 0;
}
