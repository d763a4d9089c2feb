// case: near miss: Monte Carlo pi estimate on a non-blocking stream; the host does bookkeeping while polling cudaStreamQuery until the stream is idle, and only then frees the random-seed buffer and reads the pinned result
// expect: none
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <cuda_runtime.h>

#define CHECK(call)                                                          \
  do {                                                                       \
    cudaError_t e_ = (call);                                                 \
    if (e_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));       \
      return EXIT_FAILURE;                                                   \
    }                                                                        \
  } while (0)

__device__ inline uint32_t xorshift32(uint32_t& s) {
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  return s;
}

__global__ void count_inside(const uint32_t* __restrict__ seeds, unsigned long long* hits, int samples_per_thread) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t s = seeds[t];
  unsigned long long local = 0;
  for (int k = 0; k < samples_per_thread; ++k) {
    const float x = xorshift32(s) * 2.3283064e-10f;
    const float y = xorshift32(s) * 2.3283064e-10f;
    local += (x * x + y * y) <= 1.f;
  }
  atomicAdd(hits, local);
}

int main(int argc, char** argv) {
  const int blocks = argc > 1 ? std::atoi(argv[1]) : 1024;
  const int threads = 256;
  const int per_thread = 4096;
  const int nthreads = blocks * threads;

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  uint32_t* h_seeds = nullptr;
  unsigned long long* h_hits = nullptr;
  CHECK(cudaMallocHost(&h_seeds, nthreads * sizeof(uint32_t)));
  CHECK(cudaMallocHost(&h_hits, sizeof(unsigned long long)));
  for (int i = 0; i < nthreads; ++i) h_seeds[i] = 2463534242u ^ (i * 2654435761u) | 1u;

  uint32_t* d_seeds = nullptr;
  unsigned long long* d_hits = nullptr;
  CHECK(cudaMalloc(&d_seeds, nthreads * sizeof(uint32_t)));
  CHECK(cudaMalloc(&d_hits, sizeof(unsigned long long)));
  CHECK(cudaMemcpyAsync(d_seeds, h_seeds, nthreads * sizeof(uint32_t), cudaMemcpyHostToDevice, stream));
  CHECK(cudaMemsetAsync(d_hits, 0, sizeof(unsigned long long), stream));
  count_inside<<<blocks, threads, 0, stream>>>(d_seeds, d_hits, per_thread);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(h_hits, d_hits, sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream));

  unsigned long long polls = 0;
  cudaError_t q;
  while ((q = cudaStreamQuery(stream)) == cudaErrorNotReady) {
    ++polls;
    std::this_thread::yield();
  }
  CHECK(q);

  CHECK(cudaFree(d_seeds));
  const double samples = double(nthreads) * per_thread;
  std::printf("pi ~ %.6f (%llu polls)\n", 4.0 * double(*h_hits) / samples, polls);

  CHECK(cudaFree(d_hits));
  CHECK(cudaFreeHost(h_seeds));
  CHECK(cudaFreeHost(h_hits));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
