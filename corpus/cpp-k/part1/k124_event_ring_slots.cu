// case: A three-slot staging ring (pinned in/out buffers, device buffers, a stream and an event per slot) waits on the slot's event before consuming its previous result and refilling its input, and drains the last slots the same way: correctly synchronized.
// expect: none
#include <cuda_runtime.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));         \
      std::exit(EXIT_FAILURE);                                                 \
    }                                                                          \
  } while (0)

constexpr int kSlots = 3;
constexpr size_t kBatchElems = size_t(1) << 20;

struct Slot {
  float* h_in = nullptr;
  float* h_out = nullptr;
  float* d_in = nullptr;
  float* d_out = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t done = nullptr;
};

static void slot_init(Slot& s) {
  CUDA_CHECK(cudaMallocHost(&s.h_in, kBatchElems * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&s.h_out, kBatchElems * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&s.d_in, kBatchElems * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&s.d_out, kBatchElems * sizeof(float)));
  CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming));
}

static void slot_destroy(Slot& s) {
  CUDA_CHECK(cudaStreamSynchronize(s.stream));
  CUDA_CHECK(cudaEventDestroy(s.done));
  CUDA_CHECK(cudaStreamDestroy(s.stream));
  CUDA_CHECK(cudaFree(s.d_out));
  CUDA_CHECK(cudaFree(s.d_in));
  CUDA_CHECK(cudaFreeHost(s.h_out));
  CUDA_CHECK(cudaFreeHost(s.h_in));
}

__global__ void log1p_scale(const float* __restrict__ in, float* __restrict__ out, size_t n,
                            float scale) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = scale * log1pf(fabsf(in[i]));
}

static void produce(float* dst, int batch) {
  for (size_t i = 0; i < kBatchElems; ++i) dst[i] = std::sin(0.001f * float(i + batch * 7));
}

static double consume(const float* src) {
  double s = 0.0;
  for (size_t i = 0; i < kBatchElems; ++i) s += src[i];
  return s;
}

int main(int argc, char** argv) {
  const int batches = argc > 1 ? std::atoi(argv[1]) : 20;
  std::array<Slot, kSlots> slots;
  for (Slot& s : slots) slot_init(s);
  std::vector<double> results(batches, 0.0);

  const int block = 256;
  const unsigned grid = static_cast<unsigned>((kBatchElems + block - 1) / block);
  for (int b = 0; b < batches; ++b) {
    Slot& s = slots[b % kSlots];
    if (b >= kSlots) {
      // batch b - kSlots used this slot: wait until its result has landed, then take it
      CUDA_CHECK(cudaEventSynchronize(s.done));
      results[b - kSlots] = consume(s.h_out);
    }
    produce(s.h_in, b);
    CUDA_CHECK(cudaMemcpyAsync(s.d_in, s.h_in, kBatchElems * sizeof(float),
                               cudaMemcpyHostToDevice, s.stream));
    log1p_scale<<<grid, block, 0, s.stream>>>(s.d_in, s.d_out, kBatchElems, 0.5f);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(s.h_out, s.d_out, kBatchElems * sizeof(float),
                               cudaMemcpyDeviceToHost, s.stream));
    CUDA_CHECK(cudaEventRecord(s.done, s.stream));
  }
  // drain the batches still in flight
  for (int b = std::max(0, batches - kSlots); b < batches; ++b) {
    Slot& s = slots[b % kSlots];
    CUDA_CHECK(cudaEventSynchronize(s.done));
    results[b] = consume(s.h_out);
  }

  double total = 0.0;
  for (double r : results) total += r;
  std::printf("%d batches, total %.3f\n", batches, total);

  for (Slot& s : slots) slot_destroy(s);
  return 0;
}
