// case: Per-batch pipeline hands each result to a cudaLaunchHostFunc callback enqueued after the D2H copy (the callback runs only once the copy is complete), waits on an event recorded after the H2D copy before refilling the pinned input, and synchronizes the stream before reading the callbacks' sums and freeing.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

constexpr int kBatches = 16;
constexpr size_t kN = size_t(1) << 20;
constexpr size_t kBytes = kN * sizeof(float);

struct BatchJob {
  const float* result;  // pinned, written by the D2H copy of this batch
  size_t n;
  double sum;
};

static void CUDART_CB on_batch_done(void* user) {
  BatchJob* job = static_cast<BatchJob*>(user);
  double s = 0.0;
  for (size_t i = 0; i < job->n; ++i) s += job->result[i];
  job->sum = s;
}

__global__ void square(const float* in, float* out, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = in[i] * in[i];
}

int main() {
  float *h_in, *h_out, *d_in, *d_out;
  CUDA_CHECK(cudaMallocHost(&h_in, kBytes));
  CUDA_CHECK(cudaMallocHost(&h_out, kBytes * kBatches));
  CUDA_CHECK(cudaMalloc(&d_in, kBytes));
  CUDA_CHECK(cudaMalloc(&d_out, kBytes));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t input_consumed;
  CUDA_CHECK(cudaEventCreateWithFlags(&input_consumed, cudaEventDisableTiming));

  BatchJob jobs[kBatches];
  for (int b = 0; b < kBatches; ++b) {
    CUDA_CHECK(cudaEventSynchronize(input_consumed));  // the previous batch's upload is done
    for (size_t i = 0; i < kN; ++i) h_in[i] = float((i + b) % 1000) * 1e-3f;
    CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, kBytes, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaEventRecord(input_consumed, stream));
    square<<<unsigned((kN + 255) / 256), 256, 0, stream>>>(d_in, d_out, kN);
    CUDA_CHECK(cudaMemcpyAsync(h_out + b * kN, d_out, kBytes, cudaMemcpyDeviceToHost, stream));
    jobs[b] = BatchJob{h_out + b * kN, kN, 0.0};
    CUDA_CHECK(cudaLaunchHostFunc(stream, on_batch_done, &jobs[b]));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));

  double total = 0.0;
  for (int b = 0; b < kBatches; ++b) total += jobs[b].sum;
  printf("total = %.4f\n", total);

  CUDA_CHECK(cudaEventDestroy(input_consumed));
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaFreeHost(h_in));
  CUDA_CHECK(cudaFreeHost(h_out));
  return 0;
}
