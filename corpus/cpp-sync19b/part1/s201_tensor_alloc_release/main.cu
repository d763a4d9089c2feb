// case: tensor library op allocates a per-call scales tensor through its allocator and calls alloc.release() (cudaFree inside) right after launching the kernel that reads it on a stream
// expect: relies_on_implicit_sync=1
#include <cstdio>
#include <vector>

#include "allocator.cuh"
#include "ops.cuh"

int main() {
  const int rows = 512, cols = 1024;
  const size_t n = static_cast<size_t>(rows) * cols;

  tl::DeviceAllocator alloc;
  cudaStream_t stream;
  cudaStreamCreate(&stream);

  std::vector<float> h_x(n), h_scales(rows), h_y(n);
  for (size_t i = 0; i < n; ++i) h_x[i] = static_cast<float>(i % 97) * 0.01f;
  for (int r = 0; r < rows; ++r) h_scales[r] = 1.0f / (1.0f + r);

  float* d_x = static_cast<float*>(alloc.allocate(n * sizeof(float)));
  float* d_y = static_cast<float*>(alloc.allocate(n * sizeof(float)));
  if (d_x == nullptr || d_y == nullptr) {
    alloc.release(d_x, n * sizeof(float));
    alloc.release(d_y, n * sizeof(float));
    cudaStreamDestroy(stream);
    return 1;
  }
  cudaMemcpy(d_x, h_x.data(), n * sizeof(float), cudaMemcpyHostToDevice);

  bool ok = tl::scale_rows(alloc, d_x, d_y, h_scales.data(), rows, cols, stream);

  // blocking copy on the legacy stream: waits for the kernel on the (blocking) stream
  cudaMemcpy(h_y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("ok=%d y[last]=%f live=%zu bytes in %d blocks\n", ok, h_y[n - 1], alloc.live_bytes(),
              alloc.live_blocks());

  alloc.release(d_x, n * sizeof(float));
  alloc.release(d_y, n * sizeof(float));
  cudaStreamDestroy(stream);
  return ok ? 0 : 1;
}
