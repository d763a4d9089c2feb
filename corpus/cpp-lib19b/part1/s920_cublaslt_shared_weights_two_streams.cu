// Two request queues served concurrently by one dense layer through cuBLASLt.
// Each queue has its own stream, input, output and workspace; the weight
// matrix is shared and only read by both matmuls.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cublasLt.h>

#define CUDA_CHECK(x)                                                           \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "CUDA %s (%s:%d)\n", cudaGetErrorString(e_),         \
                   __FILE__, __LINE__);                                         \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

#define LT_CHECK(x)                                                             \
  do {                                                                          \
    cublasStatus_t s_ = (x);                                                    \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                          \
      std::fprintf(stderr, "cuBLASLt %d (%s:%d)\n", static_cast<int>(s_),       \
                   __FILE__, __LINE__);                                         \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

constexpr int kM = 1024;  // output features
constexpr int kK = 2048;  // input features
constexpr int kN = 128;   // requests per queue
constexpr size_t kWorkspaceBytes = 4u << 20;

struct Queue {
  cudaStream_t stream = nullptr;
  float* h_x = nullptr;  // pinned, kK x kN
  float* h_y = nullptr;  // pinned, kM x kN
  float* d_x = nullptr;
  float* d_y = nullptr;
  void* workspace = nullptr;
};

static void queue_init(Queue& q, float phase) {
  CUDA_CHECK(cudaStreamCreateWithFlags(&q.stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaMallocHost(&q.h_x, sizeof(float) * kK * kN));
  CUDA_CHECK(cudaMallocHost(&q.h_y, sizeof(float) * kM * kN));
  CUDA_CHECK(cudaMalloc(&q.d_x, sizeof(float) * kK * kN));
  CUDA_CHECK(cudaMalloc(&q.d_y, sizeof(float) * kM * kN));
  CUDA_CHECK(cudaMalloc(&q.workspace, kWorkspaceBytes));
  for (int i = 0; i < kK * kN; ++i) q.h_x[i] = std::cos(phase + 0.002f * i);
  CUDA_CHECK(cudaMemcpyAsync(q.d_x, q.h_x, sizeof(float) * kK * kN, cudaMemcpyHostToDevice,
                             q.stream));
  CUDA_CHECK(cudaMemsetAsync(q.d_y, 0, sizeof(float) * kM * kN, q.stream));
}

static void queue_destroy(Queue& q) {
  CUDA_CHECK(cudaStreamSynchronize(q.stream));
  CUDA_CHECK(cudaFree(q.workspace));
  CUDA_CHECK(cudaFree(q.d_y));
  CUDA_CHECK(cudaFree(q.d_x));
  CUDA_CHECK(cudaFreeHost(q.h_y));
  CUDA_CHECK(cudaFreeHost(q.h_x));
  CUDA_CHECK(cudaStreamDestroy(q.stream));
}

int main() {
  cublasLtHandle_t lt;
  LT_CHECK(cublasLtCreate(&lt));

  cublasLtMatmulDesc_t op;
  LT_CHECK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasLtMatrixLayout_t w_layout, x_layout, y_layout;
  LT_CHECK(cublasLtMatrixLayoutCreate(&w_layout, CUDA_R_32F, kM, kK, kM));
  LT_CHECK(cublasLtMatrixLayoutCreate(&x_layout, CUDA_R_32F, kK, kN, kK));
  LT_CHECK(cublasLtMatrixLayoutCreate(&y_layout, CUDA_R_32F, kM, kN, kM));
  cublasLtMatmulPreference_t pref;
  LT_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  size_t ws_limit = kWorkspaceBytes;
  LT_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                &ws_limit, sizeof(ws_limit)));
  cublasLtMatmulHeuristicResult_t heuristic = {};
  int found = 0;
  LT_CHECK(cublasLtMatmulAlgoGetHeuristic(lt, op, w_layout, x_layout, y_layout, y_layout, pref, 1,
                                          &heuristic, &found));
  if (found == 0) {
    std::fprintf(stderr, "no cuBLASLt algorithm\n");
    return 1;
  }

  Queue a, b;
  queue_init(a, 0.0f);
  queue_init(b, 1.5f);

  // Shared weights, uploaded on a's stream and waited for before either
  // queue's matmul is issued.
  float* h_W = nullptr;
  float* d_W = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_W, sizeof(float) * kM * kK));
  CUDA_CHECK(cudaMalloc(&d_W, sizeof(float) * kM * kK));
  for (int i = 0; i < kM * kK; ++i) h_W[i] = 0.01f * std::sin(0.001f * i);
  CUDA_CHECK(cudaMemcpyAsync(d_W, h_W, sizeof(float) * kM * kK, cudaMemcpyHostToDevice, a.stream));
  CUDA_CHECK(cudaStreamSynchronize(a.stream));

  const float alpha = 1.0f, beta = 0.0f;
  LT_CHECK(cublasLtMatmul(lt, op, &alpha, d_W, w_layout, a.d_x, x_layout, &beta, a.d_y, y_layout,
                          a.d_y, y_layout, &heuristic.algo, a.workspace, kWorkspaceBytes,
                          a.stream));
  LT_CHECK(cublasLtMatmul(lt, op, &alpha, d_W, w_layout, b.d_x, x_layout, &beta, b.d_y, y_layout,
                          b.d_y, y_layout, &heuristic.algo, b.workspace, kWorkspaceBytes,
                          b.stream));
  CUDA_CHECK(cudaMemcpyAsync(a.h_y, a.d_y, sizeof(float) * kM * kN, cudaMemcpyDeviceToHost,
                             a.stream));
  CUDA_CHECK(cudaMemcpyAsync(b.h_y, b.d_y, sizeof(float) * kM * kN, cudaMemcpyDeviceToHost,
                             b.stream));

  CUDA_CHECK(cudaStreamSynchronize(a.stream));
  CUDA_CHECK(cudaStreamSynchronize(b.stream));
  double sa = 0.0, sb = 0.0;
  for (int i = 0; i < kM * kN; ++i) {
    sa += a.h_y[i];
    sb += b.h_y[i];
  }
  std::printf("queue a checksum %.5f, queue b checksum %.5f\n", sa, sb);

  // Both streams that read d_W have been waited for.
  CUDA_CHECK(cudaFree(d_W));
  CUDA_CHECK(cudaFreeHost(h_W));
  queue_destroy(b);
  queue_destroy(a);
  LT_CHECK(cublasLtMatmulPreferenceDestroy(pref));
  LT_CHECK(cublasLtMatrixLayoutDestroy(y_layout));
  LT_CHECK(cublasLtMatrixLayoutDestroy(x_layout));
  LT_CHECK(cublasLtMatrixLayoutDestroy(w_layout));
  LT_CHECK(cublasLtMatmulDescDestroy(op));
  LT_CHECK(cublasLtDestroy(lt));
  return 0;
}
