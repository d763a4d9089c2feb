// case: a multi-stream chunked pipeline checks its copies and launches but drops the status of cudaStreamSynchronize in the drain loop and of one cudaFreeHost at cleanup.
// expect: unchecked_cuda_result=2
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CUDA_CHECK(expr)                                                    \
  do {                                                                      \
    const cudaError_t rc_ = (expr);                                         \
    if (rc_ != cudaSuccess) {                                               \
      std::fprintf(stderr, "[cuda] %s -> %s (%s:%d)\n", #expr,              \
                   cudaGetErrorString(rc_), __FILE__, __LINE__);            \
      std::exit(EXIT_FAILURE);                                              \
    }                                                                       \
  } while (0)

__global__ void gamma_correct(const float* in, float* out, int n, float inv_gamma) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __powf(in[i], inv_gamma);
}

int main() {
  constexpr int kStreams = 4;
  const int total = 1 << 24;
  const int chunk = total / kStreams;
  const size_t chunk_bytes = chunk * sizeof(float);

  float *h_in = nullptr, *h_out = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_in, total * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_out, total * sizeof(float)));
  for (int i = 0; i < total; ++i) h_in[i] = static_cast<float>(i % 1024) / 1023.0f;

  float *d_in = nullptr, *d_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_in, total * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, total * sizeof(float)));

  cudaStream_t streams[kStreams];
  for (int s = 0; s < kStreams; ++s) CUDA_CHECK(cudaStreamCreate(&streams[s]));

  for (int s = 0; s < kStreams; ++s) {
    const int off = s * chunk;
    CUDA_CHECK(cudaMemcpyAsync(d_in + off, h_in + off, chunk_bytes,
                               cudaMemcpyHostToDevice, streams[s]));
    gamma_correct<<<(chunk + 255) / 256, 256, 0, streams[s]>>>(d_in + off, d_out + off,
                                                               chunk, 1.0f / 2.2f);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_out + off, d_out + off, chunk_bytes,
                               cudaMemcpyDeviceToHost, streams[s]));
  }

  for (int s = 0; s < kStreams; ++s) {
    cudaStreamSynchronize(streams[s]);  // EXPECT: unchecked_cuda_result
  }

  double checksum = 0.0;
  for (int i = 0; i < total; i += 4096) checksum += h_out[i];
  std::printf("checksum %.6f\n", checksum);

  for (int s = 0; s < kStreams; ++s) CUDA_CHECK(cudaStreamDestroy(streams[s]));
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaFreeHost(h_in));
  cudaFreeHost(h_out);  // EXPECT: unchecked_cuda_result
  return 0;
}
