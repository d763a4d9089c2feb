// case: bucketize() holds the bin edges in a std::unique_ptr whose deleter calls cudaFree; the pointer goes out of scope at the end of the function while the kernel reading the edges may still run
// expect: relies_on_implicit_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <memory>
#include <vector>

struct CudaFreeDeleter {
  void operator()(void* p) const noexcept { cudaFree(p); }
};

template <typename T>
using device_unique_ptr = std::unique_ptr<T, CudaFreeDeleter>;

template <typename T>
device_unique_ptr<T> make_device_array(size_t count) {
  T* p = nullptr;
  if (cudaMalloc(&p, count * sizeof(T)) != cudaSuccess) p = nullptr;
  return device_unique_ptr<T>(p);
}

__global__ void bucketize_kernel(const float* values, const float* edges, int num_edges, int* bucket, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = values[i];
  int lo = 0, hi = num_edges;  // first edge greater than v
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (edges[mid] <= v) lo = mid + 1; else hi = mid;
  }
  bucket[i] = lo;
}

void bucketize(const float* d_values, int* d_bucket, int n, const std::vector<float>& edges, cudaStream_t stream) {
  auto d_edges = make_device_array<float>(edges.size());
  if (!d_edges) return;
  cudaMemcpy(d_edges.get(), edges.data(), edges.size() * sizeof(float), cudaMemcpyHostToDevice);
  bucketize_kernel<<<(n + 255) / 256, 256, 0, stream>>>(d_values, d_edges.get(), static_cast<int>(edges.size()), d_bucket, n);
}  // EXPECT: relies_on_implicit_sync

int main() {
  const int n = 1 << 20;
  std::vector<float> h_values(n);
  for (int i = 0; i < n; ++i) h_values[i] = static_cast<float>((i * 7919) % 1000) / 10.0f;
  std::vector<float> edges;
  for (int e = 1; e < 10; ++e) edges.push_back(10.0f * e);

  cudaStream_t stream;
  cudaStreamCreate(&stream);
  auto d_values = make_device_array<float>(n);
  auto d_bucket = make_device_array<int>(n);
  if (!d_values || !d_bucket) {
    cudaStreamDestroy(stream);
    return 1;
  }
  cudaMemcpy(d_values.get(), h_values.data(), n * sizeof(float), cudaMemcpyHostToDevice);

  bucketize(d_values.get(), d_bucket.get(), n, edges, stream);

  std::vector<int> h_bucket(n);
  cudaStreamSynchronize(stream);
  cudaMemcpy(h_bucket.data(), d_bucket.get(), n * sizeof(int), cudaMemcpyDeviceToHost);
  std::vector<int> counts(edges.size() + 1, 0);
  for (int b : h_bucket) counts[b]++;
  std::printf("bucket 0: %d, bucket 9: %d\n", counts[0], counts[9]);

  cudaStreamDestroy(stream);
  return 0;
}
