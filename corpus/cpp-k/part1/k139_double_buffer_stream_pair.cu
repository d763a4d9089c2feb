// case: A double-buffered checksum job alternates two pinned buffers and two streams, synchronizing a buffer's stream before reading its previous result and refilling it, and takes per-batch scratch from the stream-ordered pool with cudaMallocAsync/cudaFreeAsync on the same stream that uses it: correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(EXIT_FAILURE);                                                 \
    }                                                                          \
  } while (0)

constexpr size_t kWords = size_t(1) << 22;  // 16 MiB per batch
constexpr int kBlocks = 256;

__global__ void fletcher_partial(const uint32_t* __restrict__ data, size_t n,
                                 uint64_t* __restrict__ partial) {
  uint64_t a = 0, b = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    a += data[i];
    b += a;
  }
  atomicAdd(reinterpret_cast<unsigned long long*>(&partial[2 * blockIdx.x]), a);
  atomicAdd(reinterpret_cast<unsigned long long*>(&partial[2 * blockIdx.x + 1]), b);
}

__global__ void fold(const uint64_t* __restrict__ partial, int blocks, uint64_t* __restrict__ out) {
  if (threadIdx.x != 0) return;
  uint64_t a = 0, b = 0;
  for (int k = 0; k < blocks; ++k) {
    a += partial[2 * k];
    b += partial[2 * k + 1];
  }
  *out = a * 1000003ull + b;
}

struct Lane {
  cudaStream_t stream;
  uint32_t* h_data;
  uint64_t* h_sum;
  uint32_t* d_data;
  uint64_t* d_sum;
  int batch = -1;  // batch whose result is (or will be) in h_sum
};

int main(int argc, char** argv) {
  const int batches = argc > 1 ? std::atoi(argv[1]) : 12;
  Lane lanes[2];
  for (Lane& l : lanes) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&l.stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMallocHost(&l.h_data, kWords * sizeof(uint32_t)));
    CUDA_CHECK(cudaMallocHost(&l.h_sum, sizeof(uint64_t)));
    CUDA_CHECK(cudaMalloc(&l.d_data, kWords * sizeof(uint32_t)));
    CUDA_CHECK(cudaMalloc(&l.d_sum, sizeof(uint64_t)));
  }

  uint64_t combined = 0;
  for (int b = 0; b < batches; ++b) {
    Lane& l = lanes[b & 1];
    CUDA_CHECK(cudaStreamSynchronize(l.stream));  // this lane's previous batch is finished
    if (l.batch >= 0) combined = combined * 31 + *l.h_sum + l.batch;
    for (size_t i = 0; i < kWords; ++i) l.h_data[i] = static_cast<uint32_t>(i * 2654435761u + b);
    l.batch = b;

    uint64_t* d_partial = nullptr;
    const size_t partial_bytes = 2 * kBlocks * sizeof(uint64_t);
    CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&d_partial), partial_bytes, l.stream));
    CUDA_CHECK(cudaMemsetAsync(d_partial, 0, partial_bytes, l.stream));
    CUDA_CHECK(cudaMemcpyAsync(l.d_data, l.h_data, kWords * sizeof(uint32_t), cudaMemcpyHostToDevice,
                               l.stream));
    fletcher_partial<<<kBlocks, 256, 0, l.stream>>>(l.d_data, kWords, d_partial);
    fold<<<1, 32, 0, l.stream>>>(d_partial, kBlocks, l.d_sum);
    CUDA_CHECK(cudaFreeAsync(d_partial, l.stream));  // stream-ordered after fold
    CUDA_CHECK(cudaMemcpyAsync(l.h_sum, l.d_sum, sizeof(uint64_t), cudaMemcpyDeviceToHost, l.stream));
  }
  for (Lane& l : lanes) {
    CUDA_CHECK(cudaStreamSynchronize(l.stream));
    if (l.batch >= 0) combined = combined * 31 + *l.h_sum + l.batch;
  }
  std::printf("combined checksum of %d batches: %016llx\n", batches,
              static_cast<unsigned long long>(combined));

  for (Lane& l : lanes) {
    CUDA_CHECK(cudaFree(l.d_sum));
    CUDA_CHECK(cudaFree(l.d_data));
    CUDA_CHECK(cudaFreeHost(l.h_sum));
    CUDA_CHECK(cudaFreeHost(l.h_data));
    CUDA_CHECK(cudaStreamDestroy(l.stream));
  }
  return 0;
}
