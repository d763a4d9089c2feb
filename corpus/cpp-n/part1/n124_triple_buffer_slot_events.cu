// case: Triple-buffered streaming pipeline with one stream, pinned input/output pair and event per slot; before a slot is refilled the host waits on that slot's event and only then consumes its previous result and overwrites its input, and the drain waits on every slot, so every host access is ordered after the work that used the slot.
// expect: none
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

constexpr int kSlots = 3;
constexpr int kChunks = 24;
constexpr size_t kChunk = size_t(1) << 20;
constexpr size_t kChunkBytes = kChunk * sizeof(float);

static double g_total = 0.0;

static void produce(float* dst, size_t n, int chunk) {
  for (size_t i = 0; i < n; ++i) dst[i] = float((chunk * 131 + i) % 4096) * (1.0f / 4096.0f);
}

static void consume(const float* src, size_t n) {
  double s = 0.0;
  for (size_t i = 0; i < n; ++i) s += src[i];
  g_total += s;
}

__global__ void smooth(const float* in, float* out, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  float l = in[i > 0 ? i - 1 : i], r = in[i + 1 < n ? i + 1 : i];
  out[i] = 0.25f * l + 0.5f * in[i] + 0.25f * r;
}

int main() {
  float *h_in[kSlots], *h_out[kSlots], *d_in[kSlots], *d_out[kSlots];
  cudaStream_t streams[kSlots];
  cudaEvent_t done[kSlots];
  for (int s = 0; s < kSlots; ++s) {
    CUDA_CHECK(cudaMallocHost(&h_in[s], kChunkBytes));
    CUDA_CHECK(cudaMallocHost(&h_out[s], kChunkBytes));
    CUDA_CHECK(cudaMalloc(&d_in[s], kChunkBytes));
    CUDA_CHECK(cudaMalloc(&d_out[s], kChunkBytes));
    CUDA_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&done[s], cudaEventDisableTiming));
  }

  for (int c = 0; c < kChunks; ++c) {
    const int s = c % kSlots;
    if (c >= kSlots) {
      CUDA_CHECK(cudaEventSynchronize(done[s]));
      consume(h_out[s], kChunk);
    }
    produce(h_in[s], kChunk, c);
    CUDA_CHECK(cudaMemcpyAsync(d_in[s], h_in[s], kChunkBytes, cudaMemcpyHostToDevice, streams[s]));
    smooth<<<unsigned((kChunk + 255) / 256), 256, 0, streams[s]>>>(d_in[s], d_out[s], kChunk);
    CUDA_CHECK(cudaMemcpyAsync(h_out[s], d_out[s], kChunkBytes, cudaMemcpyDeviceToHost, streams[s]));
    CUDA_CHECK(cudaEventRecord(done[s], streams[s]));
  }
  for (int c = std::max(0, kChunks - kSlots); c < kChunks; ++c) {
    const int s = c % kSlots;
    CUDA_CHECK(cudaEventSynchronize(done[s]));
    consume(h_out[s], kChunk);
  }
  printf("total = %.3f\n", g_total);

  for (int s = 0; s < kSlots; ++s) {
    CUDA_CHECK(cudaEventDestroy(done[s]));
    CUDA_CHECK(cudaStreamDestroy(streams[s]));
    CUDA_CHECK(cudaFree(d_in[s]));
    CUDA_CHECK(cudaFree(d_out[s]));
    CUDA_CHECK(cudaFreeHost(h_in[s]));
    CUDA_CHECK(cudaFreeHost(h_out[s]));
  }
  return 0;
}
