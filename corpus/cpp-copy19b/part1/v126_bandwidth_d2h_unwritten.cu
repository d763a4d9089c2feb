// case: bandwidth benchmark whose device-to-host test copies out of a fresh cudaMalloc buffer that no copy, memset or kernel ever wrote
// expect: uninitialized_device_read=1
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define TRANSFER_BYTES (64 << 20)
#define REPS 20

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

static float time_h2d(void *dst, const void *src) {
  cudaEvent_t a, b;
  CUDA_CHECK(cudaEventCreate(&a));
  CUDA_CHECK(cudaEventCreate(&b));
  CUDA_CHECK(cudaEventRecord(a));
  for (int r = 0; r < REPS; ++r) CUDA_CHECK(cudaMemcpy(dst, src, TRANSFER_BYTES, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaEventRecord(b));
  CUDA_CHECK(cudaEventSynchronize(b));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
  CUDA_CHECK(cudaEventDestroy(a));
  CUDA_CHECK(cudaEventDestroy(b));
  return ms / REPS;
}

static float time_d2h(void *dst, const void *src) {
  cudaEvent_t a, b;
  CUDA_CHECK(cudaEventCreate(&a));
  CUDA_CHECK(cudaEventCreate(&b));
  CUDA_CHECK(cudaEventRecord(a));
  for (int r = 0; r < REPS; ++r) CUDA_CHECK(cudaMemcpy(dst, src, TRANSFER_BYTES, cudaMemcpyDeviceToHost)); // EXPECT: uninitialized_device_read
  CUDA_CHECK(cudaEventRecord(b));
  CUDA_CHECK(cudaEventSynchronize(b));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
  CUDA_CHECK(cudaEventDestroy(a));
  CUDA_CHECK(cudaEventDestroy(b));
  return ms / REPS;
}

int main() {
  void *h_pinned;
  CUDA_CHECK(cudaMallocHost(&h_pinned, TRANSFER_BYTES));
  memset(h_pinned, 0x5a, TRANSFER_BYTES);

  void *d_upload, *d_download;
  CUDA_CHECK(cudaMalloc(&d_upload, TRANSFER_BYTES));
  CUDA_CHECK(cudaMalloc(&d_download, TRANSFER_BYTES));

  float up = time_h2d(d_upload, h_pinned);
  float down = time_d2h(h_pinned, d_download);
  printf("H2D: %.2f GB/s\n", TRANSFER_BYTES / up / 1e6);
  printf("D2H: %.2f GB/s\n", TRANSFER_BYTES / down / 1e6);

  CUDA_CHECK(cudaFree(d_upload));
  CUDA_CHECK(cudaFree(d_download));
  CUDA_CHECK(cudaFreeHost(h_pinned));
  return 0;
}
