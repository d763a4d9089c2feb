// case: chunked FIR filtering of a long signal with two pinned slots, two streams and one event per slot; before a slot is reused the host waits on its event, then consumes the previous output and refills the input (near-miss)
// expect: none
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "fir: %s:%d %s\n", __FILE__, __LINE__,               \
                   cudaGetErrorString(e_));                                     \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

constexpr int kTaps = 63;
__constant__ float c_taps[kTaps];

__global__ void fir(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.f;
  for (int t = 0; t < kTaps; ++t) {
    int j = i - t;
    if (j >= 0) acc += c_taps[t] * x[j];
  }
  y[i] = acc;
}

struct Slot {
  float* h_in = nullptr;
  float* h_out = nullptr;
  float* d_in = nullptr;
  float* d_out = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t done = nullptr;
  size_t first = 0;   // sample index of the chunk in flight
  size_t count = 0;   // 0: nothing in flight
};

int main() {
  const size_t total = size_t(1) << 27;
  const size_t chunk = size_t(1) << 22;
  std::vector<float> signal(total), filtered(total);
  for (size_t i = 0; i < total; ++i) signal[i] = std::sin(1e-3f * float(i));

  float taps[kTaps];
  for (int t = 0; t < kTaps; ++t) taps[t] = 1.f / kTaps;
  CUDA_CHECK(cudaMemcpyToSymbol(c_taps, taps, sizeof(taps)));

  std::vector<Slot> slots(2);
  for (Slot& s : slots) {
    CUDA_CHECK(cudaMallocHost(&s.h_in, chunk * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&s.h_out, chunk * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&s.d_in, chunk * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&s.d_out, chunk * sizeof(float)));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming));
  }

  auto drain = [&](Slot& s) {
    if (s.count == 0) return;
    CUDA_CHECK(cudaEventSynchronize(s.done));
    std::copy(s.h_out, s.h_out + s.count, filtered.begin() + s.first);
    s.count = 0;
  };

  size_t k = 0;
  for (size_t first = 0; first < total; first += chunk, ++k) {
    Slot& s = slots[k % slots.size()];
    drain(s);  // waits for this slot's previous chunk before touching its buffers
    const size_t count = std::min(chunk, total - first);
    std::copy(signal.begin() + first, signal.begin() + first + count, s.h_in);
    CUDA_CHECK(cudaMemcpyAsync(s.d_in, s.h_in, count * sizeof(float), cudaMemcpyHostToDevice, s.stream));
    fir<<<(count + 255) / 256, 256, 0, s.stream>>>(s.d_in, s.d_out, static_cast<int>(count));
    CUDA_CHECK(cudaMemcpyAsync(s.h_out, s.d_out, count * sizeof(float), cudaMemcpyDeviceToHost, s.stream));
    CUDA_CHECK(cudaEventRecord(s.done, s.stream));
    s.first = first;
    s.count = count;
  }
  for (Slot& s : slots) drain(s);

  std::printf("filtered[%zu] = %f\n", total / 2, filtered[total / 2]);
  for (Slot& s : slots) {
    cudaEventDestroy(s.done);
    cudaStreamDestroy(s.stream);
    cudaFree(s.d_out);
    cudaFree(s.d_in);
    cudaFreeHost(s.h_out);
    cudaFreeHost(s.h_in);
  }
  return 0;
}
