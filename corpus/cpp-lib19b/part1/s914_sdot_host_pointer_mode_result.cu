// Spectral radius of a symmetric matrix by power iteration, with cuBLAS in its
// default host pointer mode: the dot product and the norm come back as host
// floats, and each such call returns only once its result is written.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#define CUDA_CHECK(x)                                                           \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "CUDA error '%s' at %s:%d\n",                        \
                   cudaGetErrorString(e_), __FILE__, __LINE__);                 \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

#define CUBLAS_CHECK(x)                                                         \
  do {                                                                          \
    cublasStatus_t s_ = (x);                                                    \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                          \
      std::fprintf(stderr, "cuBLAS status %d at %s:%d\n",                       \
                   static_cast<int>(s_), __FILE__, __LINE__);                   \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

__global__ void build_matrix(float* A, int n) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= n * n) return;
  int i = idx % n, j = idx / n;
  float v = 0.0f;
  if (i == j) v = 2.0f + 0.5f * sinf(0.01f * i);
  else if (i - j == 1 || j - i == 1) v = -1.0f;
  A[idx] = v;
}

__global__ void fill(float* x, int n, float value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = value;
}

class PowerIteration {
 public:
  explicit PowerIteration(int n) : n_(n) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUBLAS_CHECK(cublasCreate(&blas_));
    CUBLAS_CHECK(cublasSetStream(blas_, stream_));
    CUDA_CHECK(cudaMalloc(&d_A_, sizeof(float) * n_ * n_));
    CUDA_CHECK(cudaMalloc(&d_v_, sizeof(float) * n_));
    CUDA_CHECK(cudaMalloc(&d_w_, sizeof(float) * n_));
    const int threads = 256;
    build_matrix<<<(n_ * n_ + threads - 1) / threads, threads, 0, stream_>>>(d_A_, n_);
    fill<<<(n_ + threads - 1) / threads, threads, 0, stream_>>>(
        d_v_, n_, 1.0f / std::sqrt(static_cast<float>(n_)));
    CUDA_CHECK(cudaGetLastError());
  }

  ~PowerIteration() {
    cudaStreamSynchronize(stream_);
    cudaFree(d_w_);
    cudaFree(d_v_);
    cudaFree(d_A_);
    cublasDestroy(blas_);
    cudaStreamDestroy(stream_);
  }

  PowerIteration(const PowerIteration&) = delete;
  PowerIteration& operator=(const PowerIteration&) = delete;

  // Returns the dominant eigenvalue estimate; `iters` gets the iteration count.
  float run(int max_iters, float tol, int* iters) {
    const float one = 1.0f, zero = 0.0f;
    float prev = 0.0f;
    for (int it = 0; it < max_iters; ++it) {
      CUBLAS_CHECK(cublasSgemv(blas_, CUBLAS_OP_N, n_, n_, &one, d_A_, n_, d_v_, 1, &zero,
                               d_w_, 1));
      float lambda = 0.0f;
      CUBLAS_CHECK(cublasSdot(blas_, n_, d_v_, 1, d_w_, 1, &lambda));
      float norm = 0.0f;
      CUBLAS_CHECK(cublasSnrm2(blas_, n_, d_w_, 1, &norm));
      const float inv = 1.0f / norm;
      CUBLAS_CHECK(cublasSscal(blas_, n_, &inv, d_w_, 1));
      CUBLAS_CHECK(cublasScopy(blas_, n_, d_w_, 1, d_v_, 1));

      if (std::fabs(lambda - prev) <= tol * std::fabs(lambda)) {
        *iters = it + 1;
        return lambda;
      }
      prev = lambda;
    }
    *iters = max_iters;
    return prev;
  }

  // Copies the current eigenvector estimate to the host.
  void eigenvector(std::vector<float>& out) {
    float* h_v = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_v, sizeof(float) * n_));
    CUDA_CHECK(cudaMemcpyAsync(h_v, d_v_, sizeof(float) * n_, cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    out.assign(h_v, h_v + n_);
    CUDA_CHECK(cudaFreeHost(h_v));
  }

 private:
  int n_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  float* d_A_ = nullptr;
  float* d_v_ = nullptr;
  float* d_w_ = nullptr;
};

int main() {
  PowerIteration solver(2048);
  int iters = 0;
  const float lambda = solver.run(500, 1e-6f, &iters);
  std::printf("spectral radius ~ %.6f after %d iterations\n", lambda, iters);

  std::vector<float> v;
  solver.eigenvector(v);
  int peak = 0;
  for (int i = 1; i < static_cast<int>(v.size()); ++i)
    if (std::fabs(v[i]) > std::fabs(v[peak])) peak = i;
  std::printf("largest eigenvector component at %d: %.5f\n", peak, v[peak]);
  return 0;
}
