// case: frame loop grows a shared workspace with ensure_capacity() (cudaFree + cudaMalloc); when frame f+1 is larger, the old workspace is freed while frame f's kernel on the stream may still read it
// expect: relies_on_implicit_sync=1
#include <cstdio>
#include <vector>

#include "denoise.cuh"
#include "workspace.cuh"

int main() {
  const int kFrames = 6;
  const int frame_len[kFrames] = {1 << 16, 1 << 17, 1 << 17, 1 << 18, 1 << 19, 1 << 19};
  size_t total = 0;
  for (int f = 0; f < kFrames; ++f) total += frame_len[f];

  std::vector<float> h_frames(total), h_out(total);
  for (size_t i = 0; i < total; ++i) h_frames[i] = static_cast<float>((i * 131) % 255);

  cudaStream_t stream;
  cudaStreamCreate(&stream);
  float* d_out = nullptr;
  cudaMalloc(&d_out, total * sizeof(float));
  Workspace ws;

  size_t offset = 0;
  for (int f = 0; f < kFrames; ++f) {
    const int n = frame_len[f];
    if (ensure_capacity(ws, n * sizeof(float)) != cudaSuccess) break;  // EXPECT: relies_on_implicit_sync
    float* d_tmp = static_cast<float*>(ws.ptr);
    cudaMemcpy(d_tmp, h_frames.data() + offset, n * sizeof(float), cudaMemcpyHostToDevice);
    box3_kernel<<<(n + 255) / 256, 256, 0, stream>>>(d_tmp, d_out + offset, n);
    offset += n;
  }

  cudaStreamSynchronize(stream);
  cudaMemcpy(h_out.data(), d_out, total * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("out[1]=%f out[last-1]=%f\n", h_out[1], h_out[total - 2]);

  release(ws);
  cudaFree(d_out);
  cudaStreamDestroy(stream);
  return 0;
}
