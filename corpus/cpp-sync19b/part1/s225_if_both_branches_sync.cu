// case: compaction step synchronizes its stream on both branches of the debug/release if (the debug branch also checks errors) before cudaFree of the flags buffer the kernels read
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

__global__ void mark_kernel(const float* x, int n, float threshold, int* flags) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) flags[i] = x[i] > threshold ? 1 : 0;
}

// keeps x[i] where flags[i] is set; order is not preserved
__global__ void compact_kernel(const float* x, const int* flags, int n, float* out, int* out_count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && flags[i]) out[atomicAdd(out_count, 1)] = x[i];
}

struct Options {
  bool debug_checks;
};

int compact(const Options& opt, const float* d_x, int n, float* d_out, int* d_count, int* h_count_pinned, cudaStream_t stream) {
  int* d_flags = nullptr;
  cudaMalloc(&d_flags, n * sizeof(int));
  cudaMemsetAsync(d_count, 0, sizeof(int), stream);
  mark_kernel<<<(n + 255) / 256, 256, 0, stream>>>(d_x, n, 0.75f, d_flags);
  compact_kernel<<<(n + 255) / 256, 256, 0, stream>>>(d_x, d_flags, n, d_out, d_count);
  cudaMemcpyAsync(h_count_pinned, d_count, sizeof(int), cudaMemcpyDeviceToHost, stream);

  if (opt.debug_checks) {
    cudaError_t err = cudaStreamSynchronize(stream);
    if (err == cudaSuccess) err = cudaGetLastError();
    if (err != cudaSuccess) std::fprintf(stderr, "compact failed: %s\n", cudaGetErrorString(err));
  } else {
    cudaStreamSynchronize(stream);
  }

  cudaFree(d_flags);
  return *h_count_pinned;
}

int main(int argc, char**) {
  const int n = 1 << 20;
  std::vector<float> h_x(n);
  for (int i = 0; i < n; ++i) h_x[i] = static_cast<float>((i * 7) % 100) / 100.0f;
  float *d_x = nullptr, *d_out = nullptr;
  int* d_count = nullptr;
  int* h_count = nullptr;
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMalloc(&d_count, sizeof(int));
  cudaMallocHost(&h_count, sizeof(int));
  cudaMemcpy(d_x, h_x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaStream_t stream;
  cudaStreamCreate(&stream);

  Options opt{argc > 1};
  int kept = compact(opt, d_x, n, d_out, d_count, h_count, stream);
  std::printf("kept %d of %d\n", kept, n);

  cudaFree(d_x);
  cudaFree(d_out);
  cudaFree(d_count);
  cudaFreeHost(h_count);
  cudaStreamDestroy(stream);
  return 0;
}
