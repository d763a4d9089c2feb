// Dense layer forward through cuBLASLt: D = W * X. The helper asks the
// heuristic for an algorithm, gives it a scratch workspace for this call, and
// releases the workspace before returning.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
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

constexpr size_t kWorkspaceBytes = 4u << 20;

// D (m x n) = W (m x k) * X (k x n), column-major, FP32.
static void linear_forward(cublasLtHandle_t lt, cudaStream_t stream, const float* W,
                           const float* X, float* D, int m, int n, int k) {
  cublasLtMatmulDesc_t op;
  LT_CHECK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t no_trans = CUBLAS_OP_N;
  LT_CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &no_trans, sizeof(no_trans)));
  LT_CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &no_trans, sizeof(no_trans)));

  cublasLtMatrixLayout_t w_layout, x_layout, d_layout;
  LT_CHECK(cublasLtMatrixLayoutCreate(&w_layout, CUDA_R_32F, m, k, m));
  LT_CHECK(cublasLtMatrixLayoutCreate(&x_layout, CUDA_R_32F, k, n, k));
  LT_CHECK(cublasLtMatrixLayoutCreate(&d_layout, CUDA_R_32F, m, n, m));

  cublasLtMatmulPreference_t pref;
  LT_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  size_t ws_limit = kWorkspaceBytes;
  LT_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                &ws_limit, sizeof(ws_limit)));
  cublasLtMatmulHeuristicResult_t heuristic = {};
  int found = 0;
  LT_CHECK(cublasLtMatmulAlgoGetHeuristic(lt, op, w_layout, x_layout, d_layout, d_layout, pref, 1,
                                          &heuristic, &found));
  if (found == 0) {
    std::fprintf(stderr, "no cuBLASLt algorithm for %dx%dx%d\n", m, n, k);
    std::exit(1);
  }

  void* workspace = nullptr;
  CUDA_CHECK(cudaMalloc(&workspace, kWorkspaceBytes));
  const float alpha = 1.0f, beta = 0.0f;
  LT_CHECK(cublasLtMatmul(lt, op, &alpha, W, w_layout, X, x_layout, &beta, D, d_layout, D,
                          d_layout, &heuristic.algo, workspace, kWorkspaceBytes, stream));
  CUDA_CHECK(cudaFree(workspace));  // EXPECT: relies_on_implicit_sync

  LT_CHECK(cublasLtMatmulPreferenceDestroy(pref));
  LT_CHECK(cublasLtMatrixLayoutDestroy(d_layout));
  LT_CHECK(cublasLtMatrixLayoutDestroy(x_layout));
  LT_CHECK(cublasLtMatrixLayoutDestroy(w_layout));
  LT_CHECK(cublasLtMatmulDescDestroy(op));
}

int main() {
  const int m = 1024, n = 256, k = 2048;
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cublasLtHandle_t lt;
  LT_CHECK(cublasLtCreate(&lt));

  float *h_W, *h_X, *h_D;
  CUDA_CHECK(cudaMallocHost(&h_W, sizeof(float) * m * k));
  CUDA_CHECK(cudaMallocHost(&h_X, sizeof(float) * k * n));
  CUDA_CHECK(cudaMallocHost(&h_D, sizeof(float) * m * n));
  for (int i = 0; i < m * k; ++i) h_W[i] = 0.01f * std::sin(0.001f * i);
  for (int i = 0; i < k * n; ++i) h_X[i] = std::cos(0.002f * i);

  float *d_W, *d_X, *d_D;
  CUDA_CHECK(cudaMalloc(&d_W, sizeof(float) * m * k));
  CUDA_CHECK(cudaMalloc(&d_X, sizeof(float) * k * n));
  CUDA_CHECK(cudaMalloc(&d_D, sizeof(float) * m * n));
  CUDA_CHECK(cudaMemcpyAsync(d_W, h_W, sizeof(float) * m * k, cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaMemcpyAsync(d_X, h_X, sizeof(float) * k * n, cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaMemsetAsync(d_D, 0, sizeof(float) * m * n, stream));

  linear_forward(lt, stream, d_W, d_X, d_D, m, n, k);

  CUDA_CHECK(cudaMemcpyAsync(h_D, d_D, sizeof(float) * m * n, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  double checksum = 0.0;
  for (int i = 0; i < m * n; ++i) checksum += h_D[i];
  std::printf("checksum %.6f\n", checksum);

  CUDA_CHECK(cudaFree(d_D));
  CUDA_CHECK(cudaFree(d_X));
  CUDA_CHECK(cudaFree(d_W));
  CUDA_CHECK(cudaFreeHost(h_D));
  CUDA_CHECK(cudaFreeHost(h_X));
  CUDA_CHECK(cudaFreeHost(h_W));
  LT_CHECK(cublasLtDestroy(lt));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
