// case: per-column mean and standard deviation of a feature matrix held in RAII device arrays; the kernel writes both statistics and both are downloaded before the destructors free them
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&data_, n_ * sizeof(T))); }
  ~DeviceArray() { cudaFree(data_); }
  DeviceArray(const DeviceArray &) = delete;
  DeviceArray &operator=(const DeviceArray &) = delete;

  void upload(const std::vector<T> &src) {
    CUDA_CHECK(cudaMemcpy(data_, src.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> out(n_);
    CUDA_CHECK(cudaMemcpy(out.data(), data_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return out;
  }
  T *data() { return data_; }
  const T *data() const { return data_; }

 private:
  T *data_ = nullptr;
  size_t n_;
};

__global__ void column_stats(const float *x, int rows, int cols, float *mean, float *stddev) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  double s = 0.0, s2 = 0.0;
  for (int r = 0; r < rows; ++r) {
    double v = x[(size_t)r * cols + c];
    s += v;
    s2 += v * v;
  }
  double m = s / rows;
  mean[c] = (float)m;
  stddev[c] = (float)sqrt(fmax(s2 / rows - m * m, 0.0));
}

int main() {
  const int rows = 50000, cols = 64;
  std::vector<float> h_x((size_t)rows * cols);
  for (size_t i = 0; i < h_x.size(); ++i) h_x[i] = (float)((i * 131) % 1000) / 100.0f + (float)(i % cols);

  DeviceArray<float> x(h_x.size());
  DeviceArray<float> mean(cols), stddev(cols);
  x.upload(h_x);

  column_stats<<<(cols + 63) / 64, 64>>>(x.data(), rows, cols, mean.data(), stddev.data());
  CUDA_CHECK(cudaGetLastError());

  std::vector<float> h_mean = mean.download();
  std::vector<float> h_std = stddev.download();
  for (int c = 0; c < 4; ++c) printf("feature %d: mean %.3f std %.3f\n", c, h_mean[c], h_std[c]);
  return 0;
}
