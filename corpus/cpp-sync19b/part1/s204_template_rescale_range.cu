// case: generic rescale<T> helper uploads a one-element range struct, launches the templated kernel that reads it on the caller's stream and cudaFree's the struct at once
// expect: relies_on_implicit_sync=1
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>

template <typename T>
struct Range {
  T lo;
  T hi;
};

template <typename T>
__global__ void rescale_kernel(T* data, const Range<T>* range, size_t n) {
  size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    T span = range->hi - range->lo;
    data[i] = span > T(0) ? (data[i] - range->lo) / span : T(0);
  }
}

// maps d_data from [lo, hi] onto [0, 1] in place, in the order of `stream`
template <typename T>
void rescale_to_unit(T* d_data, size_t n, T lo, T hi, cudaStream_t stream) {
  Range<T>* d_range = nullptr;
  cudaMalloc(&d_range, sizeof(Range<T>));
  const Range<T> h_range{lo, hi};
  cudaMemcpy(d_range, &h_range, sizeof(h_range), cudaMemcpyHostToDevice);

  const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  rescale_kernel<T><<<blocks, 256, 0, stream>>>(d_data, d_range, n);
  cudaFree(d_range);  // EXPECT: relies_on_implicit_sync
}

int main() {
  const size_t n = 1 << 20;
  std::vector<float> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = static_cast<float>((i * 2654435761u) % 10007) - 5000.0f;
  const auto mm = std::minmax_element(h.begin(), h.end());

  cudaStream_t stream;
  cudaStreamCreate(&stream);
  float* d = nullptr;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);

  rescale_to_unit<float>(d, n, *mm.first, *mm.second, stream);

  cudaStreamSynchronize(stream);
  cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("h[0]=%f h[n-1]=%f\n", h[0], h[n - 1]);

  cudaFree(d);
  cudaStreamDestroy(stream);
  return 0;
}
