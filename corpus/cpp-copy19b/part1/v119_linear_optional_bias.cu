// case: a templated fully-connected layer constructed without bias passes a null bias pointer to its kernel, which tests it against nullptr before reading it
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                    \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

template <typename T>
__global__ void linear_fwd(const T *x, const T *w, const T *bias, T *y, int in_f, int out_f) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y;
  if (o >= out_f) return;
  T acc = T(0);
  if (bias != nullptr) acc += bias[o];
  for (int k = 0; k < in_f; ++k) acc += x[row * in_f + k] * w[o * in_f + k];
  y[row * out_f + o] = acc;
}

template <typename T>
class Linear {
 public:
  Linear(int in_f, int out_f, bool with_bias) : in_(in_f), out_(out_f) {
    std::vector<T> hw((size_t)in_f * out_f);
    for (size_t i = 0; i < hw.size(); ++i) hw[i] = T(0.01) * T((int)(i % 7) - 3);
    CUDA_CHECK(cudaMalloc(&w_, hw.size() * sizeof(T)));
    CUDA_CHECK(cudaMemcpy(w_, hw.data(), hw.size() * sizeof(T), cudaMemcpyHostToDevice));
    if (with_bias) {
      std::vector<T> hb(out_f, T(0.1));
      CUDA_CHECK(cudaMalloc(&b_, out_f * sizeof(T)));
      CUDA_CHECK(cudaMemcpy(b_, hb.data(), out_f * sizeof(T), cudaMemcpyHostToDevice));
    }
  }
  ~Linear() {
    cudaFree(w_);
    cudaFree(b_);
  }
  Linear(const Linear &) = delete;
  Linear &operator=(const Linear &) = delete;

  void forward(const T *d_x, T *d_y, int batch, cudaStream_t s) const {
    dim3 block(128);
    dim3 grid((out_ + 127) / 128, batch);
    linear_fwd<T><<<grid, block, 0, s>>>(d_x, w_, b_, d_y, in_, out_);
  }

 private:
  int in_, out_;
  T *w_ = nullptr;
  T *b_ = nullptr;
};

int main() {
  const int batch = 32, in_f = 512, hidden = 256, out_f = 10;
  std::vector<float> hx(batch * in_f, 0.5f), hy(batch * out_f);

  Linear<float> fc1(in_f, hidden, false);
  Linear<float> fc2(hidden, out_f, true);

  float *d_x, *d_h, *d_y;
  CUDA_CHECK(cudaMalloc(&d_x, hx.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_h, batch * hidden * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_y, hy.size() * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_x, hx.data(), hx.size() * sizeof(float), cudaMemcpyHostToDevice));

  fc1.forward(d_x, d_h, batch, 0);
  fc2.forward(d_h, d_y, batch, 0);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(hy.data(), d_y, hy.size() * sizeof(float), cudaMemcpyDeviceToHost));
  printf("logit[0] = %f\n", hy[0]);

  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_h));
  CUDA_CHECK(cudaFree(d_y));
  return 0;
}
