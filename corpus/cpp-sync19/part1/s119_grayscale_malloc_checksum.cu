// case: RGBA-to-grayscale conversion; the result is copied with cudaMemcpyAsync into a malloc'd (pageable) buffer and the host computes a checksum over it with no wait on the stream
// expect: relies_on_implicit_sync=1, pageable_async_copy=1
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CALL(call)                                                          \
  do {                                                                           \
    cudaError_t err = (call);                                                    \
    if (err != cudaSuccess) {                                                    \
      std::fprintf(stderr, "cuda error %d (%s) at %s:%d\n", int(err),            \
                   cudaGetErrorString(err), __FILE__, __LINE__);                 \
      std::exit(EXIT_FAILURE);                                                   \
    }                                                                            \
  } while (0)

__global__ void rgba_to_gray(const uchar4* __restrict__ rgba, unsigned char* __restrict__ gray,
                             int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const uchar4 p = rgba[y * width + x];
  gray[y * width + x] = static_cast<unsigned char>(0.299f * p.x + 0.587f * p.y + 0.114f * p.z);
}

static uint32_t adler32(const unsigned char* data, size_t len) {
  uint32_t a = 1, b = 0;
  for (size_t i = 0; i < len; ++i) {
    a = (a + data[i]) % 65521u;
    b = (b + a) % 65521u;
  }
  return (b << 16) | a;
}

int main(int argc, char** argv) {
  const int width = argc > 1 ? std::atoi(argv[1]) : 4096;
  const int height = argc > 2 ? std::atoi(argv[2]) : 4096;
  const size_t pixels = size_t(width) * height;

  uchar4* h_rgba = static_cast<uchar4*>(std::malloc(pixels * sizeof(uchar4)));
  unsigned char* h_gray = static_cast<unsigned char*>(std::malloc(pixels));
  if (!h_rgba || !h_gray) {
    std::fprintf(stderr, "host allocation failed\n");
    std::free(h_rgba);
    std::free(h_gray);
    return EXIT_FAILURE;
  }
  for (size_t i = 0; i < pixels; ++i)
    h_rgba[i] = make_uchar4(i & 0xff, (i >> 8) & 0xff, (i >> 16) & 0xff, 255);

  cudaStream_t stream;
  CUDA_CALL(cudaStreamCreate(&stream));
  uchar4* d_rgba = nullptr;
  unsigned char* d_gray = nullptr;
  CUDA_CALL(cudaMalloc(&d_rgba, pixels * sizeof(uchar4)));
  CUDA_CALL(cudaMalloc(&d_gray, pixels));
  CUDA_CALL(cudaMemcpy(d_rgba, h_rgba, pixels * sizeof(uchar4), cudaMemcpyHostToDevice));

  const dim3 block(32, 8);
  const dim3 grid((width + 31) / 32, (height + 7) / 8);
  rgba_to_gray<<<grid, block, 0, stream>>>(d_rgba, d_gray, width, height);
  CUDA_CALL(cudaGetLastError());
  CUDA_CALL(cudaMemcpyAsync(h_gray, d_gray, pixels, cudaMemcpyDeviceToHost, stream));  // EXPECT: pageable_async_copy

  uint32_t a = 1, b = 0;
  for (size_t i = 0; i < pixels; ++i) {
    a = (a + h_gray[i]) % 65521u;  // EXPECT: relies_on_implicit_sync
    b = (b + a) % 65521u;
  }
  std::printf("gray checksum %08x (input %08x)\n", (b << 16) | a,
              adler32(reinterpret_cast<const unsigned char*>(h_rgba), pixels * sizeof(uchar4)));

  CUDA_CALL(cudaStreamSynchronize(stream));
  CUDA_CALL(cudaFree(d_rgba));
  CUDA_CALL(cudaFree(d_gray));
  CUDA_CALL(cudaStreamDestroy(stream));
  std::free(h_rgba);
  std::free(h_gray);
  return 0;
}
