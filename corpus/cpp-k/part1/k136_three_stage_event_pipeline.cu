// case: A three-stream tile pipeline (upload, compute, download) orders each tile's stages with per-tile events (cudaStreamWaitEvent), synchronizes the download stream before the host reads the pinned results, and synchronizes the device before freeing: correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    cudaError_t rc = (call);                                                   \
    if (rc != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,        \
                   cudaGetErrorString(rc));                                    \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

struct TileEvents {
  cudaEvent_t uploaded;
  cudaEvent_t computed;
};

__global__ void gauss3x3(const float* __restrict__ in, float* __restrict__ out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const float k[3] = {0.25f, 0.5f, 0.25f};
  float acc = 0.f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int xx = min(max(x + dx, 0), w - 1), yy = min(max(y + dy, 0), h - 1);
      acc += k[dx + 1] * k[dy + 1] * in[yy * w + xx];
    }
  out[y * w + x] = acc;
}

int main() {
  const int tile_w = 1024, tile_h = 1024, tiles = 8;
  const size_t tile_elems = size_t(tile_w) * tile_h;
  const size_t total = tile_elems * tiles;

  float *h_src, *h_dst, *d_src, *d_dst;
  CUDA_CHECK(cudaMallocHost(&h_src, total * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_dst, total * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_src, total * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_dst, total * sizeof(float)));
  for (size_t i = 0; i < total; ++i) h_src[i] = float((i * 37) % 256);

  cudaStream_t upload, compute, download;
  CUDA_CHECK(cudaStreamCreateWithFlags(&upload, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&download, cudaStreamNonBlocking));
  std::vector<TileEvents> ev(tiles);
  for (TileEvents& e : ev) {
    CUDA_CHECK(cudaEventCreateWithFlags(&e.uploaded, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&e.computed, cudaEventDisableTiming));
  }

  dim3 block(32, 8), grid(tile_w / 32, tile_h / 8);
  for (int t = 0; t < tiles; ++t) {
    const size_t off = size_t(t) * tile_elems;
    CUDA_CHECK(cudaMemcpyAsync(d_src + off, h_src + off, tile_elems * sizeof(float),
                               cudaMemcpyHostToDevice, upload));
    CUDA_CHECK(cudaEventRecord(ev[t].uploaded, upload));

    CUDA_CHECK(cudaStreamWaitEvent(compute, ev[t].uploaded, 0));
    gauss3x3<<<grid, block, 0, compute>>>(d_src + off, d_dst + off, tile_w, tile_h);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(ev[t].computed, compute));

    CUDA_CHECK(cudaStreamWaitEvent(download, ev[t].computed, 0));
    CUDA_CHECK(cudaMemcpyAsync(h_dst + off, d_dst + off, tile_elems * sizeof(float),
                               cudaMemcpyDeviceToHost, download));
  }
  // every download was issued on `download`, after its tile's compute event
  CUDA_CHECK(cudaStreamSynchronize(download));

  double sum_in = 0.0, sum_out = 0.0;
  for (size_t i = 0; i < total; ++i) {
    sum_in += h_src[i];
    sum_out += h_dst[i];
  }
  std::printf("mean in %.4f, mean out %.4f\n", sum_in / total, sum_out / total);

  CUDA_CHECK(cudaDeviceSynchronize());
  for (TileEvents& e : ev) {
    CUDA_CHECK(cudaEventDestroy(e.uploaded));
    CUDA_CHECK(cudaEventDestroy(e.computed));
  }
  CUDA_CHECK(cudaStreamDestroy(download));
  CUDA_CHECK(cudaStreamDestroy(compute));
  CUDA_CHECK(cudaStreamDestroy(upload));
  CUDA_CHECK(cudaFree(d_dst));
  CUDA_CHECK(cudaFree(d_src));
  CUDA_CHECK(cudaFreeHost(h_dst));
  CUDA_CHECK(cudaFreeHost(h_src));
  return 0;
}
