// case: near miss: producer/consumer on two non-blocking streams; the consumer stream waits on an event recorded after the producer kernel (cudaStreamWaitEvent), so the consumer kernel is ordered on the device, not by the cudaFree of an unrelated buffer in between
// expect: none
#include <cmath>
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

__global__ void init_weights(float* w, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] = 1.f / (1 + i % 17);
}

// Producer: windowed energy of a signal.
__global__ void frame_energy(const float* __restrict__ sig, const float* __restrict__ win,
                             float* __restrict__ energy, int frames, int frame_len) {
  const int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= frames) return;
  float e = 0.f;
  for (int k = 0; k < frame_len; ++k) {
    const float v = sig[f * frame_len + k] * win[k];
    e += v * v;
  }
  energy[f] = e;
}

// Consumer: voice-activity flags from the energy.
__global__ void vad_flags(const float* __restrict__ energy, unsigned char* __restrict__ flags,
                          int frames, float threshold) {
  const int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f < frames) flags[f] = energy[f] > threshold;
}

int main(int argc, char** argv) {
  const int frames = argc > 1 ? std::atoi(argv[1]) : 200000;
  const int frame_len = 256;
  const size_t samples = size_t(frames) * frame_len;

  cudaStream_t producer, consumer;
  CHECK(cudaStreamCreateWithFlags(&producer, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&consumer, cudaStreamNonBlocking));
  cudaEvent_t energy_ready;
  CHECK(cudaEventCreateWithFlags(&energy_ready, cudaEventDisableTiming));

  float* h_sig = nullptr;
  unsigned char* h_flags = nullptr;
  CHECK(cudaMallocHost(&h_sig, samples * sizeof(float)));
  CHECK(cudaMallocHost(&h_flags, frames));
  for (size_t i = 0; i < samples; ++i) h_sig[i] = std::sin(0.05f * i) * ((i / 40000) % 2 ? 1.f : 0.05f);

  float *d_sig = nullptr, *d_win = nullptr, *d_scratch = nullptr, *d_energy = nullptr;
  unsigned char* d_flags = nullptr;
  CHECK(cudaMalloc(&d_sig, samples * sizeof(float)));
  CHECK(cudaMalloc(&d_win, frame_len * sizeof(float)));
  CHECK(cudaMalloc(&d_scratch, frame_len * sizeof(float)));
  CHECK(cudaMalloc(&d_energy, frames * sizeof(float)));
  CHECK(cudaMalloc(&d_flags, frames));

  // Setup on the producer stream, waited for.
  init_weights<<<1, frame_len, 0, producer>>>(d_scratch, frame_len);
  CHECK(cudaMemcpyAsync(d_win, d_scratch, frame_len * sizeof(float), cudaMemcpyDeviceToDevice, producer));
  CHECK(cudaMemcpyAsync(d_sig, h_sig, samples * sizeof(float), cudaMemcpyHostToDevice, producer));
  CHECK(cudaStreamSynchronize(producer));

  frame_energy<<<(frames + 127) / 128, 128, 0, producer>>>(d_sig, d_win, d_energy, frames, frame_len);
  CHECK(cudaEventRecord(energy_ready, producer));
  CHECK(cudaFree(d_scratch));
  CHECK(cudaStreamWaitEvent(consumer, energy_ready, 0));
  vad_flags<<<(frames + 255) / 256, 256, 0, consumer>>>(d_energy, d_flags, frames, 10.f);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(h_flags, d_flags, frames, cudaMemcpyDeviceToHost, consumer));
  CHECK(cudaStreamSynchronize(consumer));

  int active = 0;
  for (int f = 0; f < frames; ++f) active += h_flags[f];
  std::printf("%d of %d frames active\n", active, frames);

  CHECK(cudaFree(d_sig));
  CHECK(cudaFree(d_win));
  CHECK(cudaFree(d_energy));
  CHECK(cudaFree(d_flags));
  CHECK(cudaFreeHost(h_sig));
  CHECK(cudaFreeHost(h_flags));
  CHECK(cudaEventDestroy(energy_ready));
  CHECK(cudaStreamDestroy(producer));
  CHECK(cudaStreamDestroy(consumer));
  return 0;
}
