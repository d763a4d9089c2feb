// case: A producer kernel on one stream writes a frame through one VMM view (vmm_alias.cuh) and a consumer kernel on another stream reads it through a second view of the same allocation; each hand-off is ordered by an event (and the producer waits for the consumer's event before overwriting), so the writing operation has completed before the other alias is read: correct.
// expect: none
#include "vmm_alias.cuh"

#include <cuda_runtime.h>

#define RT_CHECK(call)                                                         \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s -> %s\n", #call, cudaGetErrorString(e_));       \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

__global__ void render_frame(float* frame, int n, int t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) frame[i] = __sinf(0.001f * i + 0.1f * t);
}

__global__ void frame_energy(const float* __restrict__ frame, int n, float* __restrict__ energy) {
  float acc = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc += frame[i] * frame[i];
  atomicAdd(energy, acc);
}

int main() {
  RT_CHECK(cudaSetDevice(0));
  RT_CHECK(cudaFree(0));

  const int frames = 16;
  AliasedBuffer buf;
  aliased_create(buf, size_t(8) << 20, 0);
  const int n = static_cast<int>(buf.size / sizeof(float));

  cudaStream_t producer, consumer;
  RT_CHECK(cudaStreamCreateWithFlags(&producer, cudaStreamNonBlocking));
  RT_CHECK(cudaStreamCreateWithFlags(&consumer, cudaStreamNonBlocking));
  cudaEvent_t produced, consumed;
  RT_CHECK(cudaEventCreateWithFlags(&produced, cudaEventDisableTiming));
  RT_CHECK(cudaEventCreateWithFlags(&consumed, cudaEventDisableTiming));

  float *d_energy = nullptr, *h_energy = nullptr;
  RT_CHECK(cudaMalloc(&d_energy, frames * sizeof(float)));
  RT_CHECK(cudaMallocHost(&h_energy, frames * sizeof(float)));
  RT_CHECK(cudaMemsetAsync(d_energy, 0, frames * sizeof(float), consumer));

  float* wr = reinterpret_cast<float*>(buf.producer_view);
  const float* rd = reinterpret_cast<const float*>(buf.consumer_view);
  for (int t = 0; t < frames; ++t) {
    if (t > 0) RT_CHECK(cudaStreamWaitEvent(producer, consumed, 0));  // don't overwrite a frame being read
    render_frame<<<(n + 255) / 256, 256, 0, producer>>>(wr, n, t);
    RT_CHECK(cudaEventRecord(produced, producer));
    RT_CHECK(cudaStreamWaitEvent(consumer, produced, 0));
    frame_energy<<<128, 256, 0, consumer>>>(rd, n, d_energy + t);
    RT_CHECK(cudaEventRecord(consumed, consumer));
  }
  RT_CHECK(cudaMemcpyAsync(h_energy, d_energy, frames * sizeof(float), cudaMemcpyDeviceToHost, consumer));
  RT_CHECK(cudaStreamSynchronize(consumer));
  RT_CHECK(cudaStreamSynchronize(producer));

  for (int t = 0; t < frames; ++t) std::printf("frame %2d energy %.2f\n", t, h_energy[t]);

  aliased_destroy(buf);
  RT_CHECK(cudaEventDestroy(consumed));
  RT_CHECK(cudaEventDestroy(produced));
  RT_CHECK(cudaStreamDestroy(consumer));
  RT_CHECK(cudaStreamDestroy(producer));
  RT_CHECK(cudaFreeHost(h_energy));
  RT_CHECK(cudaFree(d_energy));
  return 0;
}
