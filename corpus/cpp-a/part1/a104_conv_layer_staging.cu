// case: Conv2d inference layer keeps a portable pinned staging buffer (cudaHostAlloc) for weight uploads; the destructor releases it with cudaFree instead of cudaFreeHost
// expect: mismatched_free=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t status_ = (call);                                               \
    if (status_ != cudaSuccess) {                                               \
      std::fprintf(stderr, "[conv] %s (%s:%d)\n", cudaGetErrorString(status_),  \
                   __FILE__, __LINE__);                                         \
      std::exit(2);                                                             \
    }                                                                           \
  } while (0)

struct ConvShape {
  int in_c, out_c, k, h, w;
  size_t weight_count() const { return static_cast<size_t>(out_c) * in_c * k * k; }
  size_t in_count() const { return static_cast<size_t>(in_c) * h * w; }
  size_t out_count() const { return static_cast<size_t>(out_c) * h * w; }
};

// Direct same-padded convolution, one thread per output element.
__global__ void conv2d_direct(const float* __restrict__ in, const float* __restrict__ wts,
                              const float* __restrict__ bias, float* __restrict__ out,
                              int in_c, int out_c, int k, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int oc = blockIdx.z;
  if (x >= w || y >= h || oc >= out_c) return;
  int r = k / 2;
  float acc = bias[oc];
  for (int ic = 0; ic < in_c; ++ic)
    for (int dy = -r; dy <= r; ++dy)
      for (int dx = -r; dx <= r; ++dx) {
        int yy = y + dy, xx = x + dx;
        if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
        acc += in[(ic * h + yy) * w + xx] * wts[((oc * in_c + ic) * k + (dy + r)) * k + (dx + r)];
      }
  out[(oc * h + y) * w + x] = fmaxf(acc, 0.f);
}

class Conv2dLayer {
 public:
  Conv2dLayer(const ConvShape& s, cudaStream_t stream) : shape_(s), stream_(stream) {
    staging_bytes_ = (s.weight_count() + s.out_c) * sizeof(float);
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_staging_), staging_bytes_, cudaHostAllocPortable));
    CUDA_CHECK(cudaMalloc(&d_weights_, s.weight_count() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_bias_, s.out_c * sizeof(float)));
  }

  ~Conv2dLayer() {
    cudaStreamSynchronize(stream_);
    cudaFree(d_bias_);
    cudaFree(d_weights_);
    cudaFree(h_staging_);  // EXPECT: mismatched_free
  }

  Conv2dLayer(const Conv2dLayer&) = delete;
  Conv2dLayer& operator=(const Conv2dLayer&) = delete;

  void load(const std::vector<float>& weights, const std::vector<float>& bias) {
    std::memcpy(h_staging_, weights.data(), weights.size() * sizeof(float));
    std::memcpy(h_staging_ + shape_.weight_count(), bias.data(), bias.size() * sizeof(float));
    CUDA_CHECK(cudaMemcpyAsync(d_weights_, h_staging_, shape_.weight_count() * sizeof(float), cudaMemcpyHostToDevice, stream_));
    CUDA_CHECK(cudaMemcpyAsync(d_bias_, h_staging_ + shape_.weight_count(), shape_.out_c * sizeof(float), cudaMemcpyHostToDevice, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));  // staging buffer is reused by the next load()
  }

  void forward(const float* d_in, float* d_out) const {
    dim3 block(16, 16);
    dim3 grid((shape_.w + 15) / 16, (shape_.h + 15) / 16, shape_.out_c);
    conv2d_direct<<<grid, block, 0, stream_>>>(d_in, d_weights_, d_bias_, d_out, shape_.in_c,
                                              shape_.out_c, shape_.k, shape_.h, shape_.w);
  }

 private:
  ConvShape shape_;
  cudaStream_t stream_;
  float* h_staging_ = nullptr;
  size_t staging_bytes_ = 0;
  float* d_weights_ = nullptr;
  float* d_bias_ = nullptr;
};

int main() {
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  ConvShape shape{64, 128, 3, 56, 56};
  float *d_in = nullptr, *d_out = nullptr, *h_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_in, shape.in_count() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, shape.out_count() * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_out, shape.out_count() * sizeof(float)));
  CUDA_CHECK(cudaMemsetAsync(d_in, 0, shape.in_count() * sizeof(float), stream));
  {
    Conv2dLayer conv(shape, stream);
    conv.load(std::vector<float>(shape.weight_count(), 0.01f), std::vector<float>(shape.out_c, 0.1f));
    conv.forward(d_in, d_out);
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, shape.out_count() * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  std::printf("out[0] = %f\n", h_out[0]);
  cudaFreeHost(h_out);
  cudaFree(d_out);
  cudaFree(d_in);
  cudaStreamDestroy(stream);
  return 0;
}
