// case: feature extractor exporting each layer's activations on a separate copy stream; the copy stream waits (cudaStreamWaitEvent) on the event recorded after the producing kernel, and the host synchronizes the copy stream before reading the pinned export (near-miss)
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "features: %s\n", cudaGetErrorString(e_));           \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

__global__ void layer_forward(const float* __restrict__ in, float* __restrict__ out, int n, float gain) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaxf(gain * in[i] + 0.01f, 0.f);
}

__global__ void seed_input(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = (i % 101) * 0.01f - 0.5f;
}

class FeatureExporter {
 public:
  FeatureExporter(int width, int layers) : n_(width), layers_(layers) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&produced_, cudaEventDisableTiming));
    d_act_.resize(layers + 1);
    for (float*& p : d_act_) CUDA_CHECK(cudaMalloc(&p, n_ * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_export_, n_ * sizeof(float)));
  }

  ~FeatureExporter() {
    cudaStreamSynchronize(copy_);
    cudaStreamSynchronize(compute_);
    cudaFreeHost(h_export_);
    for (float* p : d_act_) cudaFree(p);
    cudaEventDestroy(produced_);
    cudaStreamDestroy(copy_);
    cudaStreamDestroy(compute_);
  }

  std::vector<double> run() {
    std::vector<double> means;
    seed_input<<<(n_ + 255) / 256, 256, 0, compute_>>>(d_act_[0], n_);
    for (int l = 0; l < layers_; ++l) {
      layer_forward<<<(n_ + 255) / 256, 256, 0, compute_>>>(d_act_[l], d_act_[l + 1], n_, 0.9f + 0.01f * l);
      CUDA_CHECK(cudaEventRecord(produced_, compute_));
      CUDA_CHECK(cudaStreamWaitEvent(copy_, produced_, 0));
      CUDA_CHECK(cudaMemcpyAsync(h_export_, d_act_[l + 1], n_ * sizeof(float), cudaMemcpyDeviceToHost, copy_));
      CUDA_CHECK(cudaStreamSynchronize(copy_));
      double sum = 0.0;
      for (int i = 0; i < n_; ++i) sum += h_export_[i];
      means.push_back(sum / n_);
    }
    return means;
  }

 private:
  int n_, layers_;
  cudaStream_t compute_ = nullptr, copy_ = nullptr;
  cudaEvent_t produced_ = nullptr;
  std::vector<float*> d_act_;
  float* h_export_ = nullptr;
};

int main() {
  FeatureExporter fx(1 << 22, 12);
  std::vector<double> means = fx.run();
  for (size_t l = 0; l < means.size(); ++l) std::printf("layer %zu mean %.5f\n", l, means[l]);
  return 0;
}
