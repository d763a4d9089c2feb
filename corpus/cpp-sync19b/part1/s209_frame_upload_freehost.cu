// case: camera frame uploader fills a pinned staging buffer, enqueues the host-to-device copy on the capture stream and cudaFreeHost's the staging buffer before the copy is known to be done
// expect: relies_on_implicit_sync=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <vector>

struct Frame {
  int width;
  int height;
  uint8_t* d_rgb;  // width * height * 3 bytes on the device
};

__global__ void luma_kernel(const uint8_t* rgb, float* luma, int pixels) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < pixels) {
    luma[i] = 0.299f * rgb[3 * i] + 0.587f * rgb[3 * i + 1] + 0.114f * rgb[3 * i + 2];
  }
}

// stands in for the sensor driver handing over one raw frame
static void read_sensor(uint8_t* dst, int width, int height, int frame_no) {
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width * 3; ++x) dst[static_cast<size_t>(y) * width * 3 + x] = static_cast<uint8_t>(x + y + frame_no);
}

bool upload_frame(Frame& f, int frame_no, cudaStream_t capture_stream) {
  const size_t bytes = static_cast<size_t>(f.width) * f.height * 3;
  uint8_t* h_stage = nullptr;
  if (cudaMallocHost(&h_stage, bytes) != cudaSuccess) return false;
  read_sensor(h_stage, f.width, f.height, frame_no);
  cudaMemcpyAsync(f.d_rgb, h_stage, bytes, cudaMemcpyHostToDevice, capture_stream);
  cudaFreeHost(h_stage);  // EXPECT: relies_on_implicit_sync
  return true;
}

int main() {
  Frame f{1280, 720, nullptr};
  const int pixels = f.width * f.height;
  cudaMalloc(&f.d_rgb, static_cast<size_t>(pixels) * 3);
  float* d_luma = nullptr;
  cudaMalloc(&d_luma, pixels * sizeof(float));
  cudaStream_t stream;
  cudaStreamCreate(&stream);

  std::vector<float> h_luma(pixels);
  for (int frame_no = 0; frame_no < 4; ++frame_no) {
    if (!upload_frame(f, frame_no, stream)) break;
    luma_kernel<<<(pixels + 255) / 256, 256, 0, stream>>>(f.d_rgb, d_luma, pixels);
    cudaMemcpy(h_luma.data(), d_luma, pixels * sizeof(float), cudaMemcpyDeviceToHost);
    std::printf("frame %d: luma[0]=%f\n", frame_no, h_luma[0]);
  }

  cudaStreamSynchronize(stream);
  cudaFree(f.d_rgb);
  cudaFree(d_luma);
  cudaStreamDestroy(stream);
  return 0;
}
