// case: a Black-Scholes options pricer uploads its option book straight from a std::vector with cudaMemcpyAsync (pageable), and its sanity check reads the premiums through the cudaMalloc'd d_prices_ instead of the pinned copy.
// expect: pageable_async_copy=1, host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

struct OptionSpec {
  float spot, strike, rate, vol, expiry;
  int is_call;
};

__global__ void black_scholes(const OptionSpec* specs, size_t n, float* prices) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  OptionSpec o = specs[i];
  float sq = o.vol * sqrtf(o.expiry);
  float d1 = (logf(o.spot / o.strike) + (o.rate + 0.5f * o.vol * o.vol) * o.expiry) / sq;
  float d2 = d1 - sq;
  float disc = o.strike * expf(-o.rate * o.expiry);
  prices[i] = o.is_call ? o.spot * normcdff(d1) - disc * normcdff(d2)
                        : disc * normcdff(-d2) - o.spot * normcdff(-d1);
}

class BlackScholesPricer {
 public:
  explicit BlackScholesPricer(size_t capacity) : capacity_(capacity) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&d_specs_, capacity_ * sizeof(OptionSpec)));
    CUDA_CHECK(cudaMalloc(&d_prices_, capacity_ * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_prices_, capacity_ * sizeof(float)));
  }
  ~BlackScholesPricer() {
    cudaStreamSynchronize(stream_);
    cudaFreeHost(h_prices_);
    cudaFree(d_prices_);
    cudaFree(d_specs_);
    cudaStreamDestroy(stream_);
  }

  bool price(const std::vector<OptionSpec>& book) {
    n_ = book.size() < capacity_ ? book.size() : capacity_;
    CUDA_CHECK(cudaMemcpyAsync(d_specs_, book.data(), n_ * sizeof(OptionSpec),  // EXPECT: pageable_async_copy
                               cudaMemcpyHostToDevice, stream_));
    unsigned blocks = static_cast<unsigned>((n_ + 255) / 256);
    black_scholes<<<blocks, 256, 0, stream_>>>(d_specs_, n_, d_prices_);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_prices_, d_prices_, n_ * sizeof(float), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    return sanityCheck();
  }

  float premium(size_t i) const { return h_prices_[i]; }
  size_t count() const { return n_; }

 private:
  bool sanityCheck() const {
    // a negative premium means the kernel saw a corrupted book
    if (d_prices_[0] < 0.0f || d_prices_[n_ - 1] < 0.0f) {  // EXPECT: host_deref_device_ptr
      std::fprintf(stderr, "negative premium in batch of %zu\n", n_);
      return false;
    }
    return true;
  }

  size_t capacity_;
  size_t n_ = 0;
  cudaStream_t stream_ = nullptr;
  OptionSpec* d_specs_ = nullptr;
  float* d_prices_ = nullptr;
  float* h_prices_ = nullptr;
};

int main() {
  std::vector<OptionSpec> book(200000);
  for (size_t i = 0; i < book.size(); ++i) {
    book[i] = OptionSpec{100.f, 80.f + (i % 40), 0.03f, 0.2f + 0.001f * (i % 100), 0.25f + (i % 8) * 0.25f,
                         static_cast<int>(i & 1)};
  }
  BlackScholesPricer pricer(book.size());
  if (!pricer.price(book)) return 1;
  double total = 0;
  for (size_t i = 0; i < pricer.count(); ++i) total += pricer.premium(i);
  std::printf("book value %.2f over %zu options\n", total, pricer.count());
  return 0;
}
