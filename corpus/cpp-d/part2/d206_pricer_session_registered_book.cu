// case: an options-pricing session page-locks the caller's std::vector book with cudaHostRegister in its constructor (unregistering after a sync in the destructor) and copies a small market-parameter struct member by value size; both async uploads are correct.
// expect: none
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

struct OptionSpec { float spot, strike, vol, expiry; int is_call; };
struct MarketParams { float rate; float dividend; float vol_shift; int day_count; };

__global__ void price_book(const OptionSpec* specs, const MarketParams* mp, size_t n, float* out) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  OptionSpec o = specs[i];
  float vol = o.vol + mp->vol_shift;
  float t = o.expiry * 365.f / mp->day_count;
  float sq = vol * sqrtf(t);
  float d1 = (logf(o.spot / o.strike) + (mp->rate - mp->dividend + 0.5f * vol * vol) * t) / sq;
  float d2 = d1 - sq;
  float fwd = o.spot * expf(-mp->dividend * t), disc = o.strike * expf(-mp->rate * t);
  out[i] = o.is_call ? fwd * normcdff(d1) - disc * normcdff(d2) : disc * normcdff(-d2) - fwd * normcdff(-d1);
}

class PricerSession {
 public:
  // The book must not be resized while the session lives: its storage is page-locked in place.
  PricerSession(std::vector<OptionSpec>& book, const MarketParams& mp)
      : book_(book), params_(mp), n_(book.size()) {
    CUDA_CHECK(cudaHostRegister(book_.data(), n_ * sizeof(OptionSpec), cudaHostRegisterDefault));
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&d_specs_, n_ * sizeof(OptionSpec)));
    CUDA_CHECK(cudaMalloc(&d_params_, sizeof(MarketParams)));
    CUDA_CHECK(cudaMalloc(&d_out_, n_ * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_out_, n_ * sizeof(float)));
  }
  ~PricerSession() {
    cudaStreamSynchronize(stream_);
    cudaHostUnregister(book_.data());
    cudaFreeHost(h_out_);
    cudaFree(d_out_);
    cudaFree(d_params_);
    cudaFree(d_specs_);
    cudaStreamDestroy(stream_);
  }

  double run() {
    CUDA_CHECK(cudaMemcpyAsync(d_params_, &params_, sizeof(MarketParams), cudaMemcpyHostToDevice, stream_));
    CUDA_CHECK(cudaMemcpyAsync(d_specs_, book_.data(), n_ * sizeof(OptionSpec), cudaMemcpyHostToDevice, stream_));
    price_book<<<static_cast<unsigned>((n_ + 255) / 256), 256, 0, stream_>>>(d_specs_, d_params_, n_, d_out_);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_out_, d_out_, n_ * sizeof(float), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    double pv = 0;
    for (size_t i = 0; i < n_; ++i) pv += h_out_[i];
    return pv;
  }

  void bumpVol(float shift) { params_.vol_shift = shift; }  // only between runs: run() synchronized

 private:
  std::vector<OptionSpec>& book_;
  MarketParams params_;
  size_t n_;
  cudaStream_t stream_ = nullptr;
  OptionSpec* d_specs_ = nullptr;
  MarketParams* d_params_ = nullptr;
  float* d_out_ = nullptr;
  float* h_out_ = nullptr;
};

int main() {
  std::vector<OptionSpec> book(250000);
  for (size_t i = 0; i < book.size(); ++i)
    book[i] = OptionSpec{100.f, 70.f + (i % 60), 0.18f + 0.002f * (i % 50), 0.5f + (i % 4) * 0.5f, int(i % 3 != 0)};

  PricerSession session(book, MarketParams{0.035f, 0.01f, 0.0f, 365});
  double base = session.run();
  session.bumpVol(0.01f);
  double bumped = session.run();
  std::printf("vega(1 vol pt) = %.4f over %zu options\n", bumped - base, book.size());
  return 0;
}
