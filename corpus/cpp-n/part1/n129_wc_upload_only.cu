// case: Frame uploader allocates its staging buffer write-combined and only ever writes it on the host (after waiting for the previous upload's event), while results come back into ordinary cudaMallocHost memory that the host reads after synchronizing: no host read of write-combined memory.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

constexpr int kW = 1280, kH = 720;
constexpr size_t kPixels = size_t(kW) * kH;

__global__ void rgba_to_luma(const uchar4* rgba, float* luma, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) {
    uchar4 p = rgba[i];
    luma[i] = (0.299f * p.x + 0.587f * p.y + 0.114f * p.z) / 255.0f;
  }
}

int main() {
  uchar4* h_frame = nullptr;  // upload staging: the host only writes it
  CUDA_CHECK(cudaHostAlloc(&h_frame, kPixels * sizeof(uchar4), cudaHostAllocWriteCombined));
  float* h_luma = nullptr;    // readback: ordinary pinned memory
  CUDA_CHECK(cudaMallocHost(&h_luma, kPixels * sizeof(float)));
  uchar4* d_frame;
  float* d_luma;
  CUDA_CHECK(cudaMalloc(&d_frame, kPixels * sizeof(uchar4)));
  CUDA_CHECK(cudaMalloc(&d_luma, kPixels * sizeof(float)));

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t uploaded;
  CUDA_CHECK(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));

  std::vector<uchar4> decoded(kPixels);
  double mean_luma = 0.0;
  for (int f = 0; f < 60; ++f) {
    for (size_t i = 0; i < kPixels; ++i)
      decoded[i] = make_uchar4(uint8_t(i + f), uint8_t(i >> 8), uint8_t(f * 3), 255);
    CUDA_CHECK(cudaEventSynchronize(uploaded));
    memcpy(h_frame, decoded.data(), kPixels * sizeof(uchar4));
    CUDA_CHECK(cudaMemcpyAsync(d_frame, h_frame, kPixels * sizeof(uchar4), cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaEventRecord(uploaded, stream));
    rgba_to_luma<<<unsigned((kPixels + 255) / 256), 256, 0, stream>>>(d_frame, d_luma, kPixels);
    CUDA_CHECK(cudaMemcpyAsync(h_luma, d_luma, kPixels * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    double s = 0.0;
    for (size_t i = 0; i < kPixels; ++i) s += h_luma[i];
    mean_luma += s / kPixels;
  }
  printf("mean luma over 60 frames: %.4f\n", mean_luma / 60);

  CUDA_CHECK(cudaEventDestroy(uploaded));
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(d_frame));
  CUDA_CHECK(cudaFree(d_luma));
  CUDA_CHECK(cudaFreeHost(h_frame));
  CUDA_CHECK(cudaFreeHost(h_luma));
  return 0;
}
