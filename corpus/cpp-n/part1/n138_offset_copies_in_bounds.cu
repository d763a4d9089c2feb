// case: Image upload split into two halves on two streams at d_img + half (each copy exactly fills what is left after its offset), a pitched 2D copy whose row width is below the pitch, an exact-size symbol upload, and a tail copy whose run-time count is clamped to the buffer: every copy stays in bounds and the halves are joined by an event before the kernel.
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

constexpr int kRows = 1024, kCols = 1000;
constexpr size_t kPixels = size_t(kRows) * kCols;
constexpr size_t kHalf = kPixels / 2;
constexpr int kTaps = 9;

__constant__ float c_kernel[kTaps];

__global__ void blur_rows(const float* img, float* pitched, size_t pitch, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y;
  if (r >= rows || c >= cols) return;
  float acc = 0.f;
  for (int k = 0; k < kTaps; ++k) {
    int cc = min(max(c + k - kTaps / 2, 0), cols - 1);
    acc += c_kernel[k] * img[r * cols + cc];
  }
  float* row = reinterpret_cast<float*>(reinterpret_cast<char*>(pitched) + r * pitch);
  row[c] = acc;
}

int main(int argc, char** argv) {
  float *h_img, *h_out, *d_img, *d_pitched;
  size_t pitch = 0;
  CUDA_CHECK(cudaMallocHost(&h_img, kPixels * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_out, kPixels * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_img, kPixels * sizeof(float)));
  CUDA_CHECK(cudaMallocPitch(&d_pitched, &pitch, kCols * sizeof(float), kRows));
  for (size_t i = 0; i < kPixels; ++i) h_img[i] = float(i % kCols) / kCols;

  float taps[kTaps];
  for (int k = 0; k < kTaps; ++k) taps[k] = 1.0f / kTaps;
  CUDA_CHECK(cudaMemcpyToSymbol(c_kernel, taps, sizeof(taps)));
  CUDA_CHECK(cudaDeviceSynchronize());  // the symbol upload runs on the legacy stream; s0/s1 below do not wait for it

  cudaStream_t s0, s1;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  cudaEvent_t second_half;
  CUDA_CHECK(cudaEventCreateWithFlags(&second_half, cudaEventDisableTiming));

  CUDA_CHECK(cudaMemcpyAsync(d_img, h_img, kHalf * sizeof(float), cudaMemcpyHostToDevice, s0));
  CUDA_CHECK(cudaMemcpyAsync(d_img + kHalf, h_img + kHalf, (kPixels - kHalf) * sizeof(float),
                             cudaMemcpyHostToDevice, s1));
  CUDA_CHECK(cudaEventRecord(second_half, s1));
  CUDA_CHECK(cudaStreamWaitEvent(s0, second_half, 0));

  dim3 block(128), grid((kCols + 127) / 128, kRows);
  blur_rows<<<grid, block, 0, s0>>>(d_img, d_pitched, pitch, kRows, kCols);
  CUDA_CHECK(cudaMemcpy2DAsync(h_out, kCols * sizeof(float), d_pitched, pitch, kCols * sizeof(float), kRows,
                               cudaMemcpyDeviceToHost, s0));

  // Optionally refresh only the last `tail` pixels of the source image (count from the command line).
  size_t tail = argc > 1 ? size_t(strtoull(argv[1], nullptr, 10)) : 0;
  tail = std::min(tail, kPixels);
  CUDA_CHECK(cudaStreamSynchronize(s0));
  if (tail > 0)
    CUDA_CHECK(cudaMemcpyAsync(d_img + (kPixels - tail), h_img + (kPixels - tail), tail * sizeof(float),
                               cudaMemcpyHostToDevice, s0));
  CUDA_CHECK(cudaStreamSynchronize(s0));
  CUDA_CHECK(cudaStreamSynchronize(s1));
  printf("out[0] = %.4f, out[last] = %.4f\n", h_out[0], h_out[kPixels - 1]);

  CUDA_CHECK(cudaEventDestroy(second_half));
  CUDA_CHECK(cudaStreamDestroy(s0));
  CUDA_CHECK(cudaStreamDestroy(s1));
  CUDA_CHECK(cudaFree(d_img));
  CUDA_CHECK(cudaFree(d_pitched));
  CUDA_CHECK(cudaFreeHost(h_img));
  CUDA_CHECK(cudaFreeHost(h_out));
  return 0;
}
