// case: A camera stage keeps a pinned staging frame, a device frame and the address of a __device__ histogram symbol in one struct (frame_buffers.h); its destroy function releases all three with cudaFree, which is wrong for the cudaHostAlloc'd staging buffer and for the module global.
// expect: mismatched_free=2
#include "frame_buffers.h"

#include <cstdlib>

__global__ void luma_histogram(const uchar4* __restrict__ frame, size_t n,
                               unsigned int* __restrict__ hist) {
  __shared__ unsigned int local[kHistBins];
  for (int b = threadIdx.x; b < kHistBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    uchar4 p = frame[i];
    unsigned int y = (54u * p.x + 183u * p.y + 19u * p.z) >> 8;
    atomicAdd(&local[y], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kHistBins; b += blockDim.x) atomicAdd(&hist[b], local[b]);
}

static void synthesize_frame(uchar4* dst, int w, int h, int t) {
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      unsigned char v = static_cast<unsigned char>((x + y + 4 * t) & 0xff);
      dst[size_t(y) * w + x] = make_uchar4(v, static_cast<unsigned char>(255 - v), v / 2, 255);
    }
}

int main() {
  const int w = 1280, h = 720, frames = 30;
  FrameBuffers fb;
  if (frame_buffers_create(fb, w, h) != cudaSuccess) {
    std::fprintf(stderr, "could not allocate frame buffers\n");
    frame_buffers_destroy(fb);
    return 1;
  }

  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaMemsetAsync(fb.d_hist, 0, kHistBins * sizeof(unsigned int), stream);
  for (int t = 0; t < frames; ++t) {
    cudaStreamSynchronize(stream);  // staging is free again
    synthesize_frame(fb.h_staging, w, h, t);
    cudaMemcpyAsync(fb.d_frame, fb.h_staging, fb.pixels * sizeof(uchar4), cudaMemcpyHostToDevice,
                    stream);
    luma_histogram<<<80, 256, 0, stream>>>(fb.d_frame, fb.pixels, fb.d_hist);
  }

  unsigned int hist[kHistBins];
  cudaMemcpyAsync(hist, fb.d_hist, sizeof(hist), cudaMemcpyDeviceToHost, stream);
  cudaError_t err = cudaStreamSynchronize(stream);
  if (err == cudaSuccess) {
    unsigned long long total = 0;
    int peak = 0;
    for (int b = 0; b < kHistBins; ++b) {
      total += hist[b];
      if (hist[b] > hist[peak]) peak = b;
    }
    std::printf("%llu samples, peak luma %d\n", total, peak);
  }

  cudaStreamDestroy(stream);
  frame_buffers_destroy(fb);
  return err == cudaSuccess ? 0 : 1;
}
