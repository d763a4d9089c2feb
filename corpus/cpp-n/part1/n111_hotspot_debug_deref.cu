// case: Rodinia-hotspot-style grid class: its debug method dump_corner() synchronizes and then prints d_temp_ straight from the device pointer on the host, and main "resets" a cudaMalloc'd convergence scalar with a host store (code that was ported from cudaMallocManaged); both are host dereferences of device memory.
// expect: host_deref_device_ptr=2
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

__global__ void hotspot_step(const float* temp, const float* power, float* next, int rows, int cols,
                             float* max_delta) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= rows || c >= cols) return;
  int i = r * cols + c;
  float n = temp[r > 0 ? i - cols : i], s = temp[r < rows - 1 ? i + cols : i];
  float w = temp[c > 0 ? i - 1 : i], e = temp[c < cols - 1 ? i + 1 : i];
  float v = temp[i] + 0.1f * (power[i] + n + s + e + w - 4.f * temp[i]);
  next[i] = v;
  float d = fabsf(v - temp[i]);
  atomicMax(reinterpret_cast<int*>(max_delta), __float_as_int(d));  // d >= 0: int order == float order
}

class HotspotGrid {
 public:
  HotspotGrid(int rows, int cols) : rows_(rows), cols_(cols) {
    size_t bytes = size_t(rows) * cols * sizeof(float);
    CUDA_CHECK(cudaMalloc(&d_temp_, bytes));
    CUDA_CHECK(cudaMalloc(&d_next_, bytes));
    CUDA_CHECK(cudaMalloc(&d_power_, bytes));
  }
  ~HotspotGrid() {
    cudaFree(d_temp_);
    cudaFree(d_next_);
    cudaFree(d_power_);
  }
  void upload(const std::vector<float>& temp, const std::vector<float>& power) {
    CUDA_CHECK(cudaMemcpy(d_temp_, temp.data(), temp.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_power_, power.data(), power.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  void step(float* d_max_delta) {
    dim3 block(16, 16), grid((cols_ + 15) / 16, (rows_ + 15) / 16);
    hotspot_step<<<grid, block>>>(d_temp_, d_power_, d_next_, rows_, cols_, d_max_delta);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(d_temp_, d_next_, size_t(rows_) * cols_ * sizeof(float), cudaMemcpyDeviceToDevice));
  }
  void dump_corner() const {
    CUDA_CHECK(cudaDeviceSynchronize());
    for (int r = 0; r < 4; ++r)
      printf("%8.3f %8.3f %8.3f %8.3f\n", d_temp_[r * cols_], d_temp_[r * cols_ + 1], d_temp_[r * cols_ + 2], d_temp_[r * cols_ + 3]);  // EXPECT: host_deref_device_ptr
  }

 private:
  int rows_, cols_;
  float* d_temp_ = nullptr;
  float* d_next_ = nullptr;
  float* d_power_ = nullptr;
};

int main() {
  const int rows = 512, cols = 512;
  std::vector<float> temp(size_t(rows) * cols, 320.0f), power(size_t(rows) * cols);
  for (size_t i = 0; i < power.size(); ++i) power[i] = (i % 97 == 0) ? 5.0f : 0.0f;

  HotspotGrid grid(rows, cols);
  grid.upload(temp, power);

  float* d_max_delta = nullptr;
  CUDA_CHECK(cudaMalloc(&d_max_delta, sizeof(float)));
  for (int it = 0; it < 100; ++it) {
    *d_max_delta = 0.0f;  // EXPECT: host_deref_device_ptr
    grid.step(d_max_delta);
    float delta = 0.f;
    CUDA_CHECK(cudaMemcpy(&delta, d_max_delta, sizeof(float), cudaMemcpyDeviceToHost));
    if (delta < 1e-4f) break;
  }
  grid.dump_corner();
  CUDA_CHECK(cudaFree(d_max_delta));
  return 0;
}
