// case: Chunked four-stream H2D/kernel/D2H pipeline into offsets of one pinned output buffer; the only wait (an event recorded on the legacy stream) sits inside the `--timing` branch, so without that flag the checksum reads h_out while the D2H copies may still run.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

constexpr int kStreams = 4;
constexpr size_t kN = size_t(1) << 22;          // 16 MiB of floats
constexpr size_t kChunk = kN / kStreams;
constexpr size_t kChunkBytes = kChunk * sizeof(float);

__global__ void saxpy_sin(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) {
    float x = in[i];
    out[i] = 2.0f * x + __sinf(x);
  }
}

int main(int argc, char** argv) {
  bool timing = argc > 1 && strcmp(argv[1], "--timing") == 0;

  float *h_in, *h_out, *d_in, *d_out;
  CUDA_CHECK(cudaMallocHost(&h_in, kN * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_out, kN * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_in, kN * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, kN * sizeof(float)));
  for (size_t i = 0; i < kN; ++i) h_in[i] = float(i % 1024) * 0.001f;

  cudaStream_t streams[kStreams];
  for (int s = 0; s < kStreams; ++s) CUDA_CHECK(cudaStreamCreate(&streams[s]));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));

  CUDA_CHECK(cudaEventRecord(start, 0));
  for (int s = 0; s < kStreams; ++s) {
    size_t offset = s * kChunk;
    CUDA_CHECK(cudaMemcpyAsync(d_in + offset, h_in + offset, kChunkBytes,
                               cudaMemcpyHostToDevice, streams[s]));
    saxpy_sin<<<(kChunk + 255) / 256, 256, 0, streams[s]>>>(d_in + offset, d_out + offset, kChunk);
    CUDA_CHECK(cudaMemcpyAsync(h_out + offset, d_out + offset, kChunkBytes,
                               cudaMemcpyDeviceToHost, streams[s]));
  }

  if (timing) {
    CUDA_CHECK(cudaEventRecord(stop, 0));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    printf("pipeline: %.3f ms (%.2f GB/s)\n", ms, 2.0 * kN * sizeof(float) / ms / 1e6);
  }

  double checksum = 0.0;
  for (size_t i = 0; i < kN; ++i) checksum += h_out[i];  // EXPECT: missing_sync
  printf("checksum = %.6e\n", checksum);

  CUDA_CHECK(cudaDeviceSynchronize());
  for (int s = 0; s < kStreams; ++s) CUDA_CHECK(cudaStreamDestroy(streams[s]));
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaFreeHost(h_in));
  CUDA_CHECK(cudaFreeHost(h_out));
  return 0;
}
