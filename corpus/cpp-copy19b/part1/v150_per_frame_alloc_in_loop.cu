// case: a video brightness pass that allocates a device frame buffer inside the per-frame loop and frees only once after the loop, losing every earlier frame's allocation when the pointer is overwritten
// expect: device_memory_leak=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define FRAME_W 1280
#define FRAME_H 720
#define NUM_FRAMES 240
#define BLOCK 256

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

__global__ void adjust_brightness(unsigned char *px, int n, int delta) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = px[i] + delta;
    px[i] = (unsigned char)(v < 0 ? 0 : (v > 255 ? 255 : v));
  }
}

static void decode_frame(int index, std::vector<unsigned char> &frame) {
  for (size_t i = 0; i < frame.size(); ++i) frame[i] = (unsigned char)((i + index * 3) & 0xff);
}

int main() {
  const int frame_bytes = FRAME_W * FRAME_H;
  std::vector<unsigned char> frame(frame_bytes);
  unsigned char *d_frame = nullptr;
  unsigned long long checksum = 0;

  for (int f = 0; f < NUM_FRAMES; ++f) {
    decode_frame(f, frame);
    CUDA_CHECK(cudaMalloc(&d_frame, frame_bytes)); // EXPECT: device_memory_leak
    CUDA_CHECK(cudaMemcpy(d_frame, frame.data(), frame_bytes, cudaMemcpyHostToDevice));
    adjust_brightness<<<(frame_bytes + BLOCK - 1) / BLOCK, BLOCK>>>(d_frame, frame_bytes, 20);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(frame.data(), d_frame, frame_bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < frame_bytes; i += 4096) checksum += frame[i];
  }

  printf("processed %d frames, checksum %llu\n", NUM_FRAMES, checksum);
  CUDA_CHECK(cudaFree(d_frame));
  return 0;
}
