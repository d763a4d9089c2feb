// case: image thresholding with an RAII device-buffer class where the host downloads the input buffer instead of the mask the kernel wrote, so the mask is freed unread by its destructor
// expect: unread_kernel_output=1
#include <cstdio>
#include <cstdlib>
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
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t count) : count_(count) {
    CUDA_CHECK(cudaMalloc(&ptr_, count_ * sizeof(T)));
  }
  ~DeviceBuffer() { cudaFree(ptr_); } // EXPECT: unread_kernel_output
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  void copy_from_host(const T *src) {
    CUDA_CHECK(cudaMemcpy(ptr_, src, count_ * sizeof(T), cudaMemcpyHostToDevice));
  }
  void copy_to_host(T *dst) const {
    CUDA_CHECK(cudaMemcpy(dst, ptr_, count_ * sizeof(T), cudaMemcpyDeviceToHost));
  }
  T *get() { return ptr_; }
  const T *get() const { return ptr_; }
  size_t size() const { return count_; }

 private:
  T *ptr_ = nullptr;
  size_t count_;
};

__global__ void threshold(const unsigned char *img, unsigned char *mask, unsigned char t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) mask[i] = img[i] > t ? 255 : 0;
}

int main() {
  const int w = 2048, h = 2048, n = w * h;
  std::vector<unsigned char> h_img(n), h_mask(n);
  for (int i = 0; i < n; ++i) h_img[i] = (unsigned char)((i % w + i / w) & 0xff);

  {
    DeviceBuffer<unsigned char> img(n);
    DeviceBuffer<unsigned char> mask(n);
    img.copy_from_host(h_img.data());
    threshold<<<(n + 255) / 256, 256>>>(img.get(), mask.get(), 128, n);
    CUDA_CHECK(cudaGetLastError());
    img.copy_to_host(h_mask.data());
  }

  int on = 0;
  for (unsigned char m : h_mask) on += m == 255;
  printf("%d of %d pixels above threshold\n", on, n);
  return 0;
}
