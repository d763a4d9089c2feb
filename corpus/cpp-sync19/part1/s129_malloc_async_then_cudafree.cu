// case: out of scope for relies_on_implicit_sync: a cudaMallocAsync scratch buffer is released with cudaFree, which is documented not to wait for such memory, while the kernels using it may still run (a plain missing_sync)
// expect: missing_sync=1
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                           \
  do {                                                                        \
    cudaError_t e_ = (call);                                                  \
    if (e_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      return EXIT_FAILURE;                                                    \
    }                                                                         \
  } while (0)

// Exclusive prefix sum of per-block counts, then scatter of kept elements (stream compaction).
__global__ void count_positive(const float* __restrict__ x, int* __restrict__ block_counts, int n, int per_block) {
  if (threadIdx.x != 0) return;
  const int begin = blockIdx.x * per_block, end = min(n, begin + per_block);
  int c = 0;
  for (int i = begin; i < end; ++i) c += x[i] > 0.f;
  block_counts[blockIdx.x] = c;
}

__global__ void scatter_positive(const float* __restrict__ x, const int* __restrict__ block_counts,
                                 float* __restrict__ out, int n, int per_block) {
  if (threadIdx.x != 0) return;
  int base = 0;
  for (int b = 0; b < blockIdx.x; ++b) base += block_counts[b];
  const int begin = blockIdx.x * per_block, end = min(n, begin + per_block);
  for (int i = begin; i < end; ++i)
    if (x[i] > 0.f) out[base++] = x[i];
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : (1 << 22);
  const int per_block = 4096;
  const int blocks = (n + per_block - 1) / per_block;

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  float *h_x = nullptr, *h_out = nullptr;
  CHECK(cudaMallocHost(&h_x, n * sizeof(float)));
  CHECK(cudaMallocHost(&h_out, n * sizeof(float)));
  for (int i = 0; i < n; ++i) h_x[i] = (i % 3 == 0) ? -1.f : float(i % 101);

  float *d_x = nullptr, *d_out = nullptr;
  int* d_counts = nullptr;
  CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  CHECK(cudaMemcpyAsync(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice, stream));
  CHECK(cudaMemsetAsync(d_out, 0, n * sizeof(float), stream));

  CHECK(cudaMallocAsync(&d_counts, blocks * sizeof(int), stream));
  count_positive<<<blocks, 32, 0, stream>>>(d_x, d_counts, n, per_block);
  scatter_positive<<<blocks, 32, 0, stream>>>(d_x, d_counts, d_out, n, per_block);
  CHECK(cudaGetLastError());
  CHECK(cudaFree(d_counts));  // EXPECT: missing_sync

  CHECK(cudaMemcpyAsync(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  int kept = 0;
  while (kept < n && h_out[kept] > 0.f) ++kept;
  std::printf("kept %d of %d elements\n", kept, n);

  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_out));
  CHECK(cudaFreeHost(h_x));
  CHECK(cudaFreeHost(h_out));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
