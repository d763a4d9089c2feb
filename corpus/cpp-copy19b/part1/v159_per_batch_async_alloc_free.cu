// case: a streaming batch normaliser that allocates each batch's device buffer with cudaMallocAsync inside the loop and releases it with cudaFreeAsync in the same iteration
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define BATCH_ELEMS (1 << 20)
#define NUM_BATCHES 16
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

__global__ void min_max_scale(float *x, int n, float lo, float hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = (x[i] - lo) / (hi - lo);
}

int main() {
  float *h_batch;
  CUDA_CHECK(cudaMallocHost(&h_batch, BATCH_ELEMS * sizeof(float)));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  double grand_total = 0.0;
  for (int b = 0; b < NUM_BATCHES; ++b) {
    for (int i = 0; i < BATCH_ELEMS; ++i) h_batch[i] = (float)((i + b * 17) % 1000);

    float *d_batch = nullptr;
    CUDA_CHECK(cudaMallocAsync(&d_batch, BATCH_ELEMS * sizeof(float), stream));
    CUDA_CHECK(cudaMemcpyAsync(d_batch, h_batch, BATCH_ELEMS * sizeof(float), cudaMemcpyHostToDevice, stream));
    min_max_scale<<<(BATCH_ELEMS + BLOCK - 1) / BLOCK, BLOCK, 0, stream>>>(d_batch, BATCH_ELEMS, 0.f, 999.f);
    CUDA_CHECK(cudaMemcpyAsync(h_batch, d_batch, BATCH_ELEMS * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaFreeAsync(d_batch, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    double s = 0.0;
    for (int i = 0; i < BATCH_ELEMS; ++i) s += h_batch[i];
    grand_total += s / BATCH_ELEMS;
  }

  printf("mean of batch means: %f\n", grand_total / NUM_BATCHES);
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFreeHost(h_batch));
  return 0;
}
