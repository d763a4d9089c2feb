// Host-side Monte Carlo pricing of an arithmetic-average Asian call. The GPU
// is only the random-number source: cuRAND fills a device buffer with normal
// variates, which are copied back in batches to drive the path simulation on
// the CPU.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <curand.h>

#define CUDA_CHECK(x)                                                           \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
                   cudaGetErrorString(e_));                                     \
      std::exit(EXIT_FAILURE);                                                  \
    }                                                                           \
  } while (0)

#define CURAND_CHECK(x)                                                         \
  do {                                                                          \
    curandStatus_t s_ = (x);                                                    \
    if (s_ != CURAND_STATUS_SUCCESS) {                                          \
      std::fprintf(stderr, "%s:%d: cuRAND error %d\n", __FILE__, __LINE__,      \
                   static_cast<int>(s_));                                       \
      std::exit(EXIT_FAILURE);                                                  \
    }                                                                           \
  } while (0)

class GpuNormalSource {
 public:
  GpuNormalSource(size_t batch, unsigned long long seed) : batch_(batch) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CURAND_CHECK(curandCreateGenerator(&gen_, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen_, seed));
    CUDA_CHECK(cudaMalloc(&d_buf_, batch_ * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_buf_, batch_ * sizeof(float)));
  }

  ~GpuNormalSource() {
    cudaDeviceSynchronize();
    cudaFreeHost(h_buf_);
    cudaFree(d_buf_);
    curandDestroyGenerator(gen_);
    cudaStreamDestroy(stream_);
  }

  GpuNormalSource(const GpuNormalSource&) = delete;
  GpuNormalSource& operator=(const GpuNormalSource&) = delete;

  // Returns a host pointer to the next `batch` N(0,1) variates; valid until
  // the next call.
  const float* next() {
    CURAND_CHECK(curandGenerateNormal(gen_, d_buf_, batch_, 0.0f, 1.0f));
    CUDA_CHECK(cudaMemcpyAsync(h_buf_, d_buf_, batch_ * sizeof(float), cudaMemcpyDeviceToHost, stream_));  // EXPECT: missing_sync
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    return h_buf_;
  }

 private:
  size_t batch_;
  cudaStream_t stream_ = nullptr;
  curandGenerator_t gen_ = nullptr;
  float* d_buf_ = nullptr;
  float* h_buf_ = nullptr;
};

int main() {
  const double S0 = 100.0, K = 100.0, r = 0.03, sigma = 0.25, T = 1.0;
  const int steps = 64;
  const int paths_per_batch = 8192;
  const int batches = 32;
  const double dt = T / steps;
  const double drift = (r - 0.5 * sigma * sigma) * dt;
  const double vol = sigma * std::sqrt(dt);

  GpuNormalSource normals(static_cast<size_t>(paths_per_batch) * steps, 20240611ull);

  double payoff_sum = 0.0;
  for (int b = 0; b < batches; ++b) {
    const float* z = normals.next();
    for (int p = 0; p < paths_per_batch; ++p) {
      double s = S0, avg = 0.0;
      for (int t = 0; t < steps; ++t) {
        s *= std::exp(drift + vol * z[static_cast<size_t>(p) * steps + t]);
        avg += s;
      }
      payoff_sum += std::max(avg / steps - K, 0.0);
    }
  }
  const double price = std::exp(-r * T) * payoff_sum / (static_cast<double>(batches) * paths_per_batch);
  std::printf("Asian call price: %.4f\n", price);
  return 0;
}
