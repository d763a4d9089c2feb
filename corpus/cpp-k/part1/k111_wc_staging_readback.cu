// case: A transfer helper allocates its pinned staging area write-combined "for faster uploads" and then reuses the same area for the readback, so the host's verification loop reads uncached write-combined memory (after a correct synchronize).
// expect: write_combined_host_read=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CU_ASSERT(e)                                                           \
  do {                                                                         \
    cudaError_t _r = (e);                                                      \
    if (_r != cudaSuccess) {                                                   \
      std::fprintf(stderr, "fatal: %s at %s:%d\n", cudaGetErrorString(_r),     \
                   __FILE__, __LINE__);                                        \
      std::abort();                                                            \
    }                                                                          \
  } while (0)

class StagingArea {
 public:
  explicit StagingArea(size_t bytes) : bytes_(bytes) {
    // write-combined: the CPU only streams into it, the DMA engine reads it
    CU_ASSERT(cudaHostAlloc(&ptr_, bytes_, cudaHostAllocWriteCombined));
  }
  ~StagingArea() { cudaFreeHost(ptr_); }
  StagingArea(const StagingArea&) = delete;
  StagingArea& operator=(const StagingArea&) = delete;

  template <typename T>
  T* as() { return static_cast<T*>(ptr_); }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_;
};

__global__ void softmax_rows(const float* __restrict__ logits, float* __restrict__ probs,
                             int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* in = logits + size_t(r) * cols;
  float* out = probs + size_t(r) * cols;
  float m = in[0];
  for (int c = 1; c < cols; ++c) m = fmaxf(m, in[c]);
  float s = 0.f;
  for (int c = 0; c < cols; ++c) s += __expf(in[c] - m);
  for (int c = 0; c < cols; ++c) out[c] = __expf(in[c] - m) / s;
}

int main() {
  const int rows = 8192, cols = 128;
  const size_t count = size_t(rows) * cols;
  const size_t bytes = count * sizeof(float);

  StagingArea staging(bytes);
  float* host = staging.as<float>();
  for (size_t i = 0; i < count; ++i) host[i] = std::sin(0.37f * static_cast<float>(i % 977));

  float *d_logits, *d_probs;
  CU_ASSERT(cudaMalloc(&d_logits, bytes));
  CU_ASSERT(cudaMalloc(&d_probs, bytes));
  cudaStream_t s;
  CU_ASSERT(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  CU_ASSERT(cudaMemcpyAsync(d_logits, host, bytes, cudaMemcpyHostToDevice, s));
  softmax_rows<<<(rows + 127) / 128, 128, 0, s>>>(d_logits, d_probs, rows, cols);
  CU_ASSERT(cudaGetLastError());
  CU_ASSERT(cudaMemcpyAsync(host, d_probs, bytes, cudaMemcpyDeviceToHost, s));
  CU_ASSERT(cudaStreamSynchronize(s));

  int bad_rows = 0;
  for (int r = 0; r < rows; ++r) {
    double sum = 0.0;
    for (int c = 0; c < cols; ++c) sum += host[size_t(r) * cols + c];  // EXPECT: write_combined_host_read
    if (std::fabs(sum - 1.0) > 1e-4) ++bad_rows;
  }
  std::printf("%d of %d rows do not sum to 1\n", bad_rows, rows);

  CU_ASSERT(cudaStreamDestroy(s));
  CU_ASSERT(cudaFree(d_probs));
  CU_ASSERT(cudaFree(d_logits));
  return bad_rows == 0 ? 0 : 1;
}
