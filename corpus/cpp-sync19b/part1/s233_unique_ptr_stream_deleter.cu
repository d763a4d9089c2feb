// case: scratch from cudaMallocAsync held in a std::unique_ptr whose deleter calls cudaFreeAsync on the allocation's stream; the scope ends right after the two kernels using it, and the free is stream-ordered after them
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <memory>
#include <vector>

struct StreamOrderedFree {
  cudaStream_t stream;
  void operator()(float* p) const noexcept { cudaFreeAsync(p, stream); }
};
using stream_buffer = std::unique_ptr<float, StreamOrderedFree>;

static stream_buffer make_stream_buffer(size_t n, cudaStream_t stream) {
  float* p = nullptr;
  if (cudaMallocAsync(&p, n * sizeof(float), stream) != cudaSuccess) p = nullptr;
  return stream_buffer(p, StreamOrderedFree{stream});
}

__global__ void horizontal_blur_kernel(const float* in, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w || y >= h) return;
  const float* row = in + static_cast<size_t>(y) * w;
  out[static_cast<size_t>(y) * w + x] = (row[max(x - 1, 0)] + row[x] + row[min(x + 1, w - 1)]) / 3.0f;
}

__global__ void vertical_blur_kernel(const float* in, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w || y >= h) return;
  float up = in[static_cast<size_t>(max(y - 1, 0)) * w + x];
  float mid = in[static_cast<size_t>(y) * w + x];
  float down = in[static_cast<size_t>(min(y + 1, h - 1)) * w + x];
  out[static_cast<size_t>(y) * w + x] = (up + mid + down) / 3.0f;
}

void box_blur(const float* d_in, float* d_out, int w, int h, cudaStream_t stream) {
  stream_buffer d_tmp = make_stream_buffer(static_cast<size_t>(w) * h, stream);
  if (!d_tmp) return;
  dim3 grid((w + 255) / 256, h);
  horizontal_blur_kernel<<<grid, 256, 0, stream>>>(d_in, d_tmp.get(), w, h);
  vertical_blur_kernel<<<grid, 256, 0, stream>>>(d_tmp.get(), d_out, w, h);
}  // d_tmp: cudaFreeAsync(d_tmp, stream)

int main() {
  const int w = 1920, h = 1080;
  const size_t n = static_cast<size_t>(w) * h;
  std::vector<float> h_img(n);
  for (size_t i = 0; i < n; ++i) h_img[i] = (i % 2) ? 1.0f : 0.0f;
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  float *d_in = nullptr, *d_out = nullptr;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMemcpy(d_in, h_img.data(), n * sizeof(float), cudaMemcpyHostToDevice);

  box_blur(d_in, d_out, w, h, stream);

  cudaStreamSynchronize(stream);
  cudaMemcpy(h_img.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("blurred[w+1]=%f\n", h_img[w + 1]);
  cudaFree(d_in);
  cudaFree(d_out);
  cudaStreamDestroy(stream);
  return 0;
}
