// case: a frame-processing class enqueues two kernels on its stream and returns without synchronizing; the caller checks cudaGetLastError after each enqueue and synchronizes afterwards.
// expect: none
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                     \
  do {                                                                       \
    cudaError_t rc = (call);                                                 \
    if (rc != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                 \
                   cudaGetErrorString(rc));                                  \
      std::exit(EXIT_FAILURE);                                               \
    }                                                                        \
  } while (0)

__global__ void subtract_dark(const unsigned short* raw, const unsigned short* dark, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<float>(raw[i]) - static_cast<float>(dark[i]);
}

__global__ void apply_gain(float* px, float gain, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) px[i] = px[i] > 0.0f ? px[i] * gain : 0.0f;
}

class FrameCorrector {
 public:
  FrameCorrector(const unsigned short* d_dark, int pixels, float gain)
      : d_dark_(d_dark), pixels_(pixels), gain_(gain) {}

  // Enqueues the correction of one frame on `stream`; the caller checks and waits.
  void enqueue(const unsigned short* d_raw, float* d_out, cudaStream_t stream) const {
    const int blocks = (pixels_ + 255) / 256;
    subtract_dark<<<blocks, 256, 0, stream>>>(d_raw, d_dark_, d_out, pixels_);
    apply_gain<<<blocks, 256, 0, stream>>>(d_out, gain_, pixels_);
  }

 private:
  const unsigned short* d_dark_;
  int pixels_;
  float gain_;
};

int main() {
  const int pixels = 2048 * 2048, frames = 16;
  unsigned short* h_raw = nullptr;
  float* h_out = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_raw, pixels * sizeof(unsigned short)));
  CUDA_CHECK(cudaMallocHost(&h_out, pixels * sizeof(float)));

  unsigned short *d_raw = nullptr, *d_dark = nullptr;
  float* d_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_raw, pixels * sizeof(unsigned short)));
  CUDA_CHECK(cudaMalloc(&d_dark, pixels * sizeof(unsigned short)));
  CUDA_CHECK(cudaMalloc(&d_out, pixels * sizeof(float)));
  CUDA_CHECK(cudaMemset(d_dark, 0, pixels * sizeof(unsigned short)));

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  FrameCorrector corrector(d_dark, pixels, 1.5f);

  double total = 0.0;
  for (int f = 0; f < frames; ++f) {
    for (int i = 0; i < pixels; ++i) h_raw[i] = static_cast<unsigned short>((i + f) & 0x0fff);
    CUDA_CHECK(cudaMemcpyAsync(d_raw, h_raw, pixels * sizeof(unsigned short), cudaMemcpyHostToDevice, stream));
    corrector.enqueue(d_raw, d_out, stream);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, pixels * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    total += h_out[pixels / 2];
  }
  std::printf("sum of centre pixels over %d frames: %.1f\n", frames, total);

  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaFree(d_dark));
  CUDA_CHECK(cudaFree(d_raw));
  CUDA_CHECK(cudaFreeHost(h_out));
  CUDA_CHECK(cudaFreeHost(h_raw));
  return 0;
}
